import { FailureKind } from '../../core/failure-kind.js';
import {
  UpstreamFailureError,
  type CacheControl,
  type ChatMessage,
  type ContentPart,
  type ReasoningBlock,
  type SystemMessage,
  type ToolCall,
  type ToolMessage,
} from '../spec.js';
import type { JsonRecord } from '../shared/json-fields.js';
import { isShown } from '../shared/is-shown.js';
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

export interface BedrockConversationOptions {
  /** Whether the model takes cache points and Claude's reasoning blocks; without, they are left out. */
  claudeBlocks: boolean;
}

/**
 * Canonical messages → Converse `system` + `messages`. System and developer messages become
 * `system` blocks; tool results travel in user turns; consecutive turns of one role are merged,
 * because Converse requires user and assistant turns to alternate. A cache marker becomes a
 * `cachePoint` block right after the block it marks.
 */
export function toBedrockConversation(messages: readonly ChatMessage[], options: BedrockConversationOptions): BedrockConversation {
  const system: JsonRecord[] = [];
  const turns: BedrockTurn[] = [];
  for (const message of messages) {
    if (isSystemMessage(message)) {
      // Converse has no system turn: a caller's system entry among the turns joins `system`.
      if (!isShown(message)) continue;
      for (const part of message.parts ?? [{ type: 'text', text: message.content }]) system.push(...toContentBlock(part));
      continue;
    }
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = toBlocks(message);
    const previous = turns.at(-1);
    if (previous?.role === role) previous.content.push(...blocks);
    else turns.push({ role, content: blocks });
  }
  const kept = (blocks: JsonRecord[]): JsonRecord[] => (options.claudeBlocks ? blocks : blocks.filter(isPlainBlock));
  return {
    system: system.length > 0 ? kept(system) : undefined,
    messages: turns.map(({ role, content }) => ({ role, content: leadingBlocksFirst(kept(content)) })),
  };
}

/** A `cachePoint` block for a cache marker (Converse's only cache type is `default`). */
export function toCachePoint(cacheControl: CacheControl): JsonRecord {
  return { cachePoint: { type: 'default', ttl: cacheControl.ttl } };
}

/** Whether the conversation holds tool blocks, which Converse accepts only beside a `toolConfig`. */
export function hasToolBlocks(conversation: BedrockConversation): boolean {
  return conversation.messages.some((turn) => turn.content.some((block) => 'toolUse' in block || 'toolResult' in block));
}

function isSystemMessage(message: ChatMessage): message is SystemMessage {
  return message.role === 'system' || message.role === 'developer';
}

function isPlainBlock(block: JsonRecord): boolean {
  return !('cachePoint' in block || 'reasoningContent' in block);
}

/**
 * Claude models on Bedrock, like Anthropic's API, reject text before the tool results of a user
 * turn or before the reasoning of an assistant turn. A cache point moves with the block it follows.
 */
function leadingBlocksFirst(blocks: readonly JsonRecord[]): JsonRecord[] {
  const leading: JsonRecord[] = [];
  const rest: JsonRecord[] = [];
  let group = rest;
  for (const block of blocks) {
    if (!('cachePoint' in block)) group = 'toolResult' in block || 'reasoningContent' in block ? leading : rest;
    group.push(block);
  }
  return [...leading, ...rest];
}

function toBlocks(message: Exclude<ChatMessage, SystemMessage>): JsonRecord[] {
  switch (message.role) {
    case 'user':
      return message.content.flatMap(toContentBlock);
    case 'assistant':
      return [
        ...(message.reasoningBlocks ?? []).flatMap(toReasoningContentBlock),
        ...message.content.flatMap(toContentBlock),
        // Converse has no refusal input; kept as text so the history still reads right.
        ...(message.refusal ? [{ text: message.refusal }] : []),
        ...(message.toolCalls ?? []).flatMap(toToolUseBlock),
      ];
    case 'tool':
      return toToolResultBlock(message);
  }
}

/** The block, and a cache point after it when it is marked. */
function withCachePoint(block: JsonRecord, cacheControl: CacheControl | undefined): JsonRecord[] {
  return cacheControl === undefined ? [block] : [block, toCachePoint(cacheControl)];
}

/**
 * Claude's thinking, signature and all, as Converse reasoning; an unsigned block (reasoning from a
 * provider that does not sign it) would be refused, so it stays out. Redacted thinking's opaque
 * data is base64 already, which is how a blob travels in Converse JSON.
 */
function toReasoningContentBlock(block: ReasoningBlock): JsonRecord[] {
  if (block.type === 'redacted') return [{ reasoningContent: { redactedContent: block.data } }];
  if (block.signature === undefined) return [];
  return [{ reasoningContent: { reasoningText: { text: block.text, signature: block.signature } } }];
}

/** Converse rejects blank text blocks, so empty text is left out (and its marker with it). */
function toContentBlock(part: ContentPart): JsonRecord[] {
  if (part.type === 'text') return part.text === '' ? [] : withCachePoint({ text: part.text }, part.cacheControl);
  return withCachePoint({ image: toImageBlock(part.url) }, part.cacheControl);
}

/**
 * A cache point cannot go inside a tool result, so one marking the result or any of its texts
 * follows the whole result.
 */
function toToolResultBlock(message: ToolMessage): JsonRecord[] {
  const toolResult = {
    toolResult: {
      toolUseId: fitToolCallId(message.toolCallId, BEDROCK_TOOL_CALL_IDS),
      content: message.content.map((part) => ({ text: part.text })),
      status: message.isError === true ? 'error' : 'success',
    },
  };
  return withCachePoint(toolResult, message.cacheControl ?? message.content.findLast((part) => part.cacheControl)?.cacheControl);
}

const BASE64_IMAGE_DATA_URL = /^data:image\/(png|jpeg|gif|webp);base64,(.*)$/s;

/** Converse takes image bytes inline (or from S3); it cannot fetch a URL. */
function toImageBlock(url: string): JsonRecord {
  const match = BASE64_IMAGE_DATA_URL.exec(url);
  if (match === null) {
    throw new UpstreamFailureError({
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
function toToolUseBlock(call: ToolCall): JsonRecord[] {
  const toolUse = {
    toolUseId: fitToolCallId(call.id, BEDROCK_TOOL_CALL_IDS),
    name: call.name,
    input: toolArgumentsObject(call, 'Bedrock Converse'),
  };
  return withCachePoint({ toolUse }, call.cacheControl);
}

