import { FailureKind } from '../../errors/failure-kind.js';
import { ProviderFailure, type ChatMessage, type ContentPart, type SystemMessage, type ToolCall } from '../spec.js';
import type { JsonRecord } from '../shared/json-fields.js';
import { toolArgumentsObject } from '../shared/message-parts.js';
import { BEDROCK_TOOL_CALL_IDS, fitToolCallId } from '../shared/tool-call-ids.js';

export interface BedrockTurn {
  role: 'user' | 'assistant';
  content: JsonRecord[];
}

export interface BedrockConversation {
  system?: JsonRecord[];
  messages: BedrockTurn[];
}

/**
 * Canonical messages → Converse `system` + `messages`. System and developer messages become
 * `system` blocks; tool results travel in user turns; consecutive turns of one role are merged,
 * because Converse requires user and assistant turns to alternate.
 */
export function toBedrockConversation(messages: readonly ChatMessage[]): BedrockConversation {
  const system: JsonRecord[] = [];
  const turns: BedrockTurn[] = [];
  for (const message of messages) {
    if (isSystemMessage(message)) {
      if (message.content !== '') system.push({ text: message.content });
      continue;
    }
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = toBlocks(message);
    const previous = turns.at(-1);
    if (previous?.role === role) previous.content.push(...blocks);
    else turns.push({ role, content: blocks });
  }
  return {
    system: system.length > 0 ? system : undefined,
    messages: turns.map(({ role, content }) => ({ role, content: toolResultsFirst(content) })),
  };
}

/** Whether the conversation holds tool blocks, which Converse accepts only beside a `toolConfig`. */
export function hasToolBlocks(conversation: BedrockConversation): boolean {
  return conversation.messages.some((turn) => turn.content.some((block) => 'toolUse' in block || 'toolResult' in block));
}

function isSystemMessage(message: ChatMessage): message is SystemMessage {
  return message.role === 'system' || message.role === 'developer';
}

/** Claude models on Bedrock, like Anthropic's API, reject text before the tool results of a turn. */
function toolResultsFirst(blocks: readonly JsonRecord[]): JsonRecord[] {
  return [...blocks.filter((block) => 'toolResult' in block), ...blocks.filter((block) => !('toolResult' in block))];
}

function toBlocks(message: Exclude<ChatMessage, SystemMessage>): JsonRecord[] {
  switch (message.role) {
    case 'user':
      return message.content.flatMap(toContentBlock);
    case 'assistant':
      return [
        ...message.content.flatMap(toContentBlock),
        // Converse has no refusal input; kept as text so the history still reads right.
        ...(message.refusal ? [{ text: message.refusal }] : []),
        ...(message.toolCalls ?? []).map(toToolUseBlock),
      ];
    case 'tool':
      return [
        {
          toolResult: {
            toolUseId: fitToolCallId(message.toolCallId, BEDROCK_TOOL_CALL_IDS),
            content: message.content.map((part) => ({ text: part.text })),
            status: message.isError === true ? 'error' : 'success',
          },
        },
      ];
  }
}

/** Converse rejects blank text blocks, so empty text is left out. */
function toContentBlock(part: ContentPart): JsonRecord[] {
  if (part.type === 'text') return part.text === '' ? [] : [{ text: part.text }];
  return [{ image: toImageBlock(part.url) }];
}

const BASE64_IMAGE_DATA_URL = /^data:image\/(png|jpeg|gif|webp);base64,(.*)$/s;

/** Converse takes image bytes inline (or from S3); it cannot fetch a URL. */
function toImageBlock(url: string): JsonRecord {
  const match = BASE64_IMAGE_DATA_URL.exec(url);
  if (match === null) {
    throw new ProviderFailure({
      kind: FailureKind.invalidRequest,
      message: url.startsWith('data:')
        ? 'An image data URL is not base64-encoded PNG, JPEG, GIF or WebP, the formats Bedrock Converse accepts.'
        : 'Bedrock Converse cannot fetch images from a URL; send the image as a base64 data: URL.',
    });
  }
  return { format: match[1], source: { bytes: match[2] } };
}

/**
 * `toolUse.input` must be a JSON object, while canonical arguments are the model's raw text.
 * Empty text means "no arguments"; anything else that is not an object cannot be sent
 * faithfully, so the attempt fails as invalid_request rather than sending a guessed `{}`.
 */
function toToolUseBlock(call: ToolCall): JsonRecord {
  return { toolUse: { toolUseId: fitToolCallId(call.id, BEDROCK_TOOL_CALL_IDS), name: call.name, input: toolArgumentsObject(call, 'Bedrock Converse') } };
}

