import { FailureKind } from '../../core/failure-kind.js';
import {
  UpstreamFailureError,
  type ChatMessage,
  type ContentPart,
  type SystemMessage,
  type ToolCall,
  type ToolMessage,
} from '../spec.js';
import { isRecord, type JsonRecord } from '../shared/json-fields.js';
import { base64DataUrl, toolArgumentsObject } from '../shared/message-parts.js';
import { isShown } from '../shared/is-shown.js';
import { parseJson } from '../shared/parse-json.js';
import { readToolCallId } from './tool-call-id.js';

export interface GeminiContent {
  role: 'user' | 'model';
  parts: JsonRecord[];
}

export interface GeminiConversation {
  systemInstruction?: { parts: JsonRecord[] };
  contents: GeminiContent[];
}

export interface GeminiConversationOptions {
  /** The target validates thought signatures on function calls (Gemini 3 and later). */
  requiresThoughtSignatures: boolean;
}

/**
 * Google's documented stand-in for a thought signature that does not exist: a function call made
 * by another provider (history from before a failover) or one whose id a client rewrote.
 */
export const SKIP_SIGNATURE_VALIDATION = 'skip_thought_signature_validator';

/**
 * Canonical messages → `systemInstruction` + `contents`. System and developer messages become
 * system parts; assistant turns are `model` turns; tool results are `functionResponse` parts in
 * a user turn. Consecutive turns of one role are merged, so the results of parallel calls share
 * one turn, and empty text is left out (Gemini rejects empty parts and empty turns).
 */
export function toGeminiConversation(
  messages: readonly ChatMessage[],
  options: GeminiConversationOptions,
): GeminiConversation {
  const systemParts: JsonRecord[] = [];
  const contents: GeminiContent[] = [];
  // Gemini names the function a result answers; canonical results name only the call id.
  const callsById = new Map<string, ToolCall>();
  for (const message of messages) {
    if (isSystemMessage(message)) {
      // Gemini has no system turn: a caller's system entry among the turns joins the instructions.
      if (message.content !== '' && isShown(message)) systemParts.push({ text: message.content });
      continue;
    }
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) callsById.set(call.id, call);
    const role = message.role === 'assistant' ? 'model' : 'user';
    const parts = toParts(message, callsById);
    if (parts.length === 0) continue;
    const previous = contents.at(-1);
    if (previous?.role === role) previous.parts.push(...parts);
    else contents.push({ role, parts });
  }
  if (options.requiresThoughtSignatures) for (const content of contents) signFirstFunctionCall(content);
  return {
    systemInstruction: systemParts.length > 0 ? { parts: systemParts } : undefined,
    contents,
  };
}

function isSystemMessage(message: ChatMessage): message is SystemMessage {
  return message.role === 'system' || message.role === 'developer';
}

function toParts(message: Exclude<ChatMessage, SystemMessage>, callsById: ReadonlyMap<string, ToolCall>): JsonRecord[] {
  switch (message.role) {
    case 'user':
      return message.content.flatMap(toContentPart);
    case 'assistant':
      return [
        ...message.content.flatMap(toContentPart),
        // Gemini has no refusal input; kept as text so the history still reads right.
        ...(message.refusal ? [{ text: message.refusal }] : []),
        ...(message.toolCalls ?? []).map(toFunctionCallPart),
      ];
    case 'tool':
      return [toFunctionResponsePart(message, callsById)];
  }
}

function toContentPart(part: ContentPart): JsonRecord[] {
  if (part.type === 'text') return part.text === '' ? [] : [{ text: part.text }];
  return [toImagePart(part.url)];
}

function toImagePart(url: string): JsonRecord {
  if (!url.startsWith('data:')) return { fileData: { fileUri: url } };
  const { mediaType, data } = base64DataUrl(url, 'Gemini');
  return { inlineData: { mimeType: mediaType, data } };
}

/** The id gives back what Gemini sent with the call: its signature, and its own id if it had one. */
function toFunctionCallPart(call: ToolCall): JsonRecord {
  const { geminiId, signature } = readToolCallId(call.id);
  return {
    functionCall: { id: geminiId, name: call.name, args: toolArgumentsObject(call, 'Gemini') },
    thoughtSignature: signature,
  };
}


function toFunctionResponsePart(message: ToolMessage, callsById: ReadonlyMap<string, ToolCall>): JsonRecord {
  const call = callsById.get(message.toolCallId);
  if (call === undefined) {
    throw new UpstreamFailureError({
      kind: FailureKind.invalidRequest,
      message: `Tool result ${message.toolCallId} answers no earlier tool call; Gemini needs the name of the function it answers.`,
    });
  }
  return {
    functionResponse: {
      id: readToolCallId(message.toolCallId).geminiId,
      name: call.name,
      response: toFunctionResponse(message),
    },
  };
}

/**
 * `functionResponse.response` must be an object. A result that is a JSON object is sent as it is;
 * anything else goes under the keys Gemini documents: `output`, or `error` for a failed call.
 */
function toFunctionResponse(message: ToolMessage): JsonRecord {
  const text = message.content.map((part) => part.text).join('');
  const parsed = parseJson(text);
  const object = parsed.ok && isRecord(parsed.value) ? parsed.value : undefined;
  if (message.isError === true) return { error: object ?? text };
  return object ?? { output: text };
}

/**
 * Gemini 3 rejects a model turn whose first function call has no signature (later parallel calls
 * legitimately have none). Calls that never had one get the documented stand-in.
 */
function signFirstFunctionCall(content: GeminiContent): void {
  if (content.role !== 'model') return;
  const firstCall = content.parts.find((part) => part.functionCall !== undefined);
  if (firstCall !== undefined && firstCall.thoughtSignature === undefined) {
    firstCall.thoughtSignature = SKIP_SIGNATURE_VALIDATION;
  }
}
