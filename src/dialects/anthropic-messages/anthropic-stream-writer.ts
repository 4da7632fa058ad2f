import type { FinishReason, StreamEvent } from '../../providers/spec.js';
import type { Usage } from '../../core/usage.js';
import { finalErrorFields, type StreamError } from '../shared/final-error-fields.js';
import { anthropicMessageId, toAnthropicStopReason, toAnthropicUsage } from './render-anthropic-message.js';

type OpenBlock =
  | { kind: 'text'; index: number }
  | { kind: 'thinking'; index: number }
  | { kind: 'tool'; index: number; toolIndex: number };

interface Finish {
  reason: FinishReason;
  providerReason?: string | undefined;
  stopSequence?: string | undefined;
}

/** Gateway and failure codes that mean "capacity, try again later" to an Anthropic client. */
const OVERLOADED_CODES = new Set([
  'server_error', 'timeout', 'connection', 'stream_interrupted', 'overloaded', 'upstream_error', 'upstream_timeout',
  'gateway_unavailable',
]);
const RATE_LIMIT_CODES = new Set(['rate_limit', 'rate_limit_exceeded']);

/** The Anthropic error `type` for a gateway failure code, inside a stream. */
function anthropicStreamErrorType(code: string): string {
  if (RATE_LIMIT_CODES.has(code)) return 'rate_limit_error';
  return OVERLOADED_CODES.has(code) ? 'overloaded_error' : 'api_error';
}

/**
 * Renders canonical stream events as Anthropic Messages SSE, in the order the API itself uses:
 * `message_start`, then content blocks (`content_block_start`, deltas, `content_block_stop`),
 * then `message_delta` with the stop reason and usage, then `message_stop`.
 *
 * `message_start` waits for the first content so that the usage the upstream reports at its
 * start is in it (or, from an upstream that reports usage only at the end, the gateway's estimate
 * of the input). The finish is held until `end()`, because some upstreams report the final
 * usage only after their finish. Blocks are numbered in order over thinking, text and tool_use
 * blocks alike, as Anthropic does. Reasoning is rendered only inside a signed block (one that
 * opened with `reasoning-start`): a thinking block without Anthropic's signature would be
 * rejected when the client sends it back, so unsigned reasoning (OpenAI, Gemini) is not shown.
 */
export class AnthropicStreamWriter {
  readonly #fallbackId: string;
  readonly #estimateInputTokens: (() => number) | undefined;
  #id: string | undefined;
  #model: string;
  #usage: Usage | undefined;
  #finish: Finish | undefined;
  #started = false;
  #pinged = false;
  #blockCount = 0;
  #open: OpenBlock | undefined;
  /** Canonical tool-call index → its content-block index. */
  readonly #toolBlocks = new Map<number, number>();

  constructor(options: { fallbackId: string; model: string; estimateInputTokens?: () => number }) {
    this.#fallbackId = options.fallbackId;
    this.#model = options.model;
    this.#estimateInputTokens = options.estimateInputTokens;
  }

  /** The SSE text for one event ('' when the event produces no frame of its own). */
  write(event: StreamEvent): string {
    switch (event.type) {
      case 'response-start':
        if (event.id) this.#id = event.id;
        if (event.responseModel) this.#model = event.responseModel;
        return '';
      case 'text-delta':
      case 'refusal-delta':
      {
        // A refusal is what the model said; Anthropic has no separate channel for it.
        const opening = this.#textBlock();
        // The open block is always the last one opened.
        return opening + this.#delta(this.#blockCount - 1, { type: 'text_delta', text: event.text });
      }
      case 'reasoning-start':
        return this.#thinkingBlock();
      case 'reasoning-delta':
        return this.#thinkingDelta({ type: 'thinking_delta', thinking: event.text });
      case 'reasoning-signature':
        return this.#thinkingDelta({ type: 'signature_delta', signature: event.signature });
      case 'reasoning-redacted':
        return this.#redactedThinkingBlock(event.data);
      case 'tool-call-start':
        return this.#toolBlock(event.index, event.id, event.name);
      case 'tool-call-delta': {
        // A delta for a call whose block is already closed still names that block's index.
        const index = this.#toolBlocks.get(event.index);
        if (index === undefined) return '';
        return this.#delta(index, { type: 'input_json_delta', partial_json: event.argumentsDelta });
      }
      case 'tool-call-end':
        return this.#open?.kind === 'tool' && this.#open.toolIndex === event.index ? this.#closeBlock() : '';
      case 'usage':
        this.#usage = event.usage;
        return '';
      case 'finish':
        this.#finish = { reason: event.reason, providerReason: event.providerReason, stopSequence: event.stopSequence };
        return '';
      case 'provider-error':
        return this.error(event.error);
      case 'malformed-event':
      // A relayed stream's frames go out through `relayRenderer`, never through a dialect's writer.
      case 'relay-frame':
      // Output items of a Responses upstream (encrypted reasoning, hosted tool calls) have no Anthropic form.
      case 'output-item':
        return '';
    }
  }

  /** The closing frames of a complete stream: open block closed, `message_delta`, `message_stop`. */
  end(): string {
    let text = this.#start() + this.#closeBlock() + this.#ping();
    const delta = {
      stop_reason: this.#finish === undefined ? null : toAnthropicStopReason(this.#finish),
      stop_sequence: this.#finish?.stopSequence ?? null,
    };
    // The input counts ride along (as Anthropic now sends them), so a client whose
    // message_start said 0 — usage came only at the end — still learns them.
    text += frame('message_delta', { type: 'message_delta', delta, usage: toAnthropicUsage(this.#usage) });
    return text + frame('message_stop', { type: 'message_stop' });
  }

  /**
   * An in-band error the official SDKs raise; the stream then closes without `message_stop`. A
   * final error's `request_id` is also where Anthropic puts it, beside the error object.
   */
  error(error: StreamError): string {
    const extras = finalErrorFields(error);
    return frame('error', {
      type: 'error',
      error: { type: anthropicStreamErrorType(error.kind), message: error.message, ...extras },
      ...(error.requestId === undefined ? {} : { request_id: error.requestId }),
    });
  }

  #start(): string {
    if (this.#started) return '';
    this.#started = true;
    const message = {
      id: anthropicMessageId(this.#id, this.#fallbackId),
      type: 'message',
      role: 'assistant',
      model: this.#model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: toAnthropicUsage(this.#usage ?? this.#estimatedUsage()),
    };
    return frame('message_start', { type: 'message_start', message });
  }

  /**
   * An upstream that reports usage only at the end (OpenAI, Bedrock) has told nothing yet: the
   * gateway's estimate of the input stands in, as clients read input tokens from `message_start`.
   */
  #estimatedUsage(): Usage | undefined {
    if (this.#estimateInputTokens === undefined) return undefined;
    return { inputTokens: this.#estimateInputTokens(), outputTokens: 0, estimated: true };
  }

  /** Anthropic pings once, right after the first block opens (or before the end, if none does). */
  #ping(): string {
    if (this.#pinged) return '';
    this.#pinged = true;
    return frame('ping', { type: 'ping' });
  }

  #textBlock(): string {
    if (this.#open?.kind === 'text') return '';
    const text = this.#start() + this.#closeBlock();
    this.#open = { kind: 'text', index: this.#blockCount++ };
    return text + this.#blockStart(this.#open.index, { type: 'text', text: '' });
  }

  #thinkingBlock(): string {
    const text = this.#start() + this.#closeBlock();
    this.#open = { kind: 'thinking', index: this.#blockCount++ };
    return text + this.#blockStart(this.#open.index, { type: 'thinking', thinking: '', signature: '' });
  }

  /** Reasoning outside a signed thinking block is not shown (see the class comment). */
  #thinkingDelta(delta: Record<string, unknown>): string {
    return this.#open?.kind === 'thinking' ? this.#delta(this.#open.index, delta) : '';
  }

  /** Redacted thinking comes whole: its block opens and closes at once. */
  #redactedThinkingBlock(data: string): string {
    const text = this.#start() + this.#closeBlock();
    const index = this.#blockCount++;
    const opening = this.#blockStart(index, { type: 'redacted_thinking', data });
    return text + opening + frame('content_block_stop', { type: 'content_block_stop', index });
  }

  #toolBlock(toolIndex: number, id: string, name: string): string {
    const text = this.#start() + this.#closeBlock();
    this.#open = { kind: 'tool', index: this.#blockCount++, toolIndex };
    this.#toolBlocks.set(toolIndex, this.#open.index);
    return text + this.#blockStart(this.#open.index, { type: 'tool_use', id, name, input: {} });
  }

  #blockStart(index: number, block: Record<string, unknown>): string {
    return frame('content_block_start', { type: 'content_block_start', index, content_block: block }) + this.#ping();
  }

  #delta(index: number, delta: Record<string, unknown>): string {
    return frame('content_block_delta', { type: 'content_block_delta', index, delta });
  }

  #closeBlock(): string {
    if (this.#open === undefined) return '';
    const { index } = this.#open;
    this.#open = undefined;
    return frame('content_block_stop', { type: 'content_block_stop', index });
  }
}

function frame(type: string, payload: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`;
}
