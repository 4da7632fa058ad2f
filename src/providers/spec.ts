/**
 * The provider adapter contract and the canonical types every dialect translates through.
 *
 * Caller dialects (dialects/) parse into `ChatRequest`; adapters translate it to a provider's
 * wire format (its `UpstreamDialect`) and translate the provider's answer back into `ChatResult`
 * or a `StreamEvent` sequence; the caller dialect renders those. No pairwise translators.
 */
import type { FailureKind } from '../core/failure-kind.js';
import type { SseFrame } from '../streaming/sse-frame.js';
import type { StreamFraming } from '../streaming/frame-decoder.js';
import type { Usage } from '../core/usage.js';

/**
 * A provider wire format. Azure OpenAI and the OpenAI-compatible hosts speak `openai` (Chat
 * Completions); OpenAI and Azure OpenAI also speak `openai-responses`, their Responses API.
 */
export type UpstreamDialect = 'openai' | 'openai-responses' | 'anthropic' | 'gemini' | 'bedrock';

/**
 * A prompt-caching breakpoint (Anthropic `cache_control`, Bedrock `cachePoint`): the prompt up to
 * the end of the marked block may be cached. Providers that cache on their own ignore it.
 */
export interface CacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

export interface TextPart {
  type: 'text';
  text: string;
  cacheControl?: CacheControl;
}

export interface ImagePart {
  type: 'image';
  /** An http(s) URL or a `data:` URL with base64 content. */
  url: string;
  detail?: 'auto' | 'low' | 'high';
  cacheControl?: CacheControl;
}

export type ContentPart = TextPart | ImagePart;

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as JSON text, exactly as the model produced them. */
  arguments: string;
  /** A cache marker the caller put on this call in its history. */
  cacheControl?: CacheControl;
}

/**
 * A block of the model's reasoning, kept in history and results because Anthropic wants a
 * tool-using turn's thinking back, unmodified, and checks it against its signature. A block
 * without a signature is never sent to a provider, nor shown to a caller as Anthropic thinking.
 */
export type ReasoningBlock =
  | { type: 'thinking'; text: string; signature?: string }
  /** Reasoning the provider encrypted (Anthropic `redacted_thinking`): only its opaque data travels. */
  | { type: 'redacted'; data: string };

export interface SystemMessage {
  /** `developer` is OpenAI's newer name for system instructions; other dialects treat it as system. */
  role: 'system' | 'developer';
  content: string;
  /**
   * The same text as the caller's blocks, when it marked some for caching (Anthropic `system`
   * blocks with `cache_control`); `content` is their texts joined by newlines.
   */
  parts?: TextPart[];
  /** Set when the caller put it among the turns (an Anthropic `role: "system"` entry in `messages`). */
  conversationEntry?: ConversationEntry;
}

export interface ConversationEntry {
  /** The entry exactly as the caller sent it: Anthropic targets get it back in place. */
  sent: Record<string, unknown>;
  /**
   * Whether the model still reads its text: not once its `clear_at: "next_user_message"` has
   * passed, nor when it has no text (only `output_config`). Other providers get it only then.
   */
  shown: boolean;
}

export interface UserMessage {
  role: 'user';
  content: ContentPart[];
  name?: string;
}

export interface AssistantMessage {
  role: 'assistant';
  /** In the order the model produced them; they come before the text and tool calls. */
  reasoningBlocks?: ReasoningBlock[];
  content: TextPart[];
  toolCalls?: ToolCall[];
  refusal?: string;
  name?: string;
}

export interface ToolMessage {
  role: 'tool';
  toolCallId: string;
  content: TextPart[];
  isError?: boolean;
  /** A cache marker on the whole result (Anthropic `tool_result.cache_control`). */
  cacheControl?: CacheControl;
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters?: Record<string, unknown>;
  strict?: boolean;
  cacheControl?: CacheControl;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema?: Record<string, unknown>; description?: string; strict?: boolean };

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stop?: string[];
  responseFormat?: ResponseFormat;
  stream: boolean;
  /** The caller asked for the usage chunk at the end of its stream (adapters ask upstream regardless). */
  includeUsage: boolean;
  user?: string;
  /**
   * Which reasoning the caller's dialect shows, and so which reasoning commits a stream: `all`
   * (OpenAI Chat's `reasoning_content`; the default), `signed` (Anthropic thinking blocks the
   * provider signed, for a caller that asked for `thinking`) or `none`.
   */
  shownReasoning?: 'all' | 'signed' | 'none';
  /** The caller's `anthropic-beta` flags, for Anthropic and Claude-on-Bedrock targets. */
  anthropicBetas?: string[];
  /**
   * OpenAI `prompt_cache_key`: which of OpenAI's cache machines a request's prefix is routed to.
   * Sent only to OpenAI and Azure OpenAI targets; other providers have no such field.
   */
  promptCacheKey?: string;
  /**
   * Inbound fields the canonical model does not carry (e.g. OpenAI `seed`, `logprobs`). Passed on
   * only to a target that speaks the same dialect; other adapters ignore them.
   */
  passthrough?: { dialect: UpstreamDialect; fields: Record<string, unknown> };
  /**
   * A Responses caller's body as it came: a target on its own Responses API is sent it (with
   * the target's model) rather than a translation, so hosted tools, reasoning items and fields
   * the canonical request does not model reach it. Translated targets use the fields above.
   */
  responsesBody?: Readonly<Record<string, unknown>>;
  /**
   * The caller's body as it came, in its dialect's wire format: a target speaking that format is
   * sent it with only the gateway's edits spliced in (the relay, `ProviderAdapter.relay`).
   */
  callerBody?: { dialect: UpstreamDialect; text: string };
}

/** What the caller's dialect calls a finish; adapters map provider reasons onto these. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error';

export interface ChatResult {
  id: string;
  responseModel: string;
  /** Unix seconds. */
  created?: number;
  text: string;
  reasoning?: string;
  /** The reasoning as the provider's blocks, with their signatures, when it has them (Anthropic). */
  reasoningBlocks?: ReasoningBlock[];
  refusal?: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  /** The provider's own word for the finish (`end_turn`, `STOP`, …), kept for records. */
  providerFinishReason?: string;
  stopSequence?: string;
  usage?: Usage;
  systemFingerprint?: string;
  /**
   * Output items of a Responses upstream the canonical result has no form for (encrypted
   * reasoning, hosted tool calls), as the provider sent them: a Responses caller gets them.
   */
  outputItems?: Record<string, unknown>[];
}

/** The closed set of events a parsed upstream stream yields. */
export type StreamEvent =
  | { type: 'response-start'; id?: string; responseModel?: string; created?: number; systemFingerprint?: string }
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  /**
   * A reasoning block the provider signs opens (Anthropic `thinking`): its text follows as
   * `reasoning-delta`s, its signature as `reasoning-signature`. Unsigned reasoning (OpenAI,
   * Gemini) comes as bare deltas, so a dialect that must not show it unsigned can tell the two apart.
   */
  | { type: 'reasoning-start' }
  /** The signature of the open reasoning block (Anthropic sends it last; a later one replaces it). */
  | { type: 'reasoning-signature'; signature: string }
  /** A whole reasoning block the provider encrypted (Anthropic `redacted_thinking`). */
  | { type: 'reasoning-redacted'; data: string }
  | { type: 'refusal-delta'; text: string }
  /** `index` counts tool calls only (0, 1, …), whatever block numbering the provider uses. */
  | { type: 'tool-call-start'; index: number; id: string; name: string }
  | { type: 'tool-call-delta'; index: number; argumentsDelta: string }
  | { type: 'tool-call-end'; index: number }
  /** Cumulative: a later usage event replaces an earlier one. */
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: FinishReason; providerReason?: string; stopSequence?: string }
  /** An error reported inside a 200 stream (OpenAI `data: {"error":…}`, Anthropic `event: error`). */
  | { type: 'provider-error'; error: UpstreamFailure }
  /** A whole output item of a Responses upstream the canonical events have no form for (see `ChatResult.outputItems`). */
  | { type: 'output-item'; item: Record<string, unknown> }
  /** An upstream event that could not be parsed: skipped and counted, never forwarded. */
  | { type: 'malformed-event'; data: string }
  /**
   * A relayed stream's upstream frame as the caller gets it, after the events read from it: the
   * caller's dialect is the provider's, so the frame goes out as sent rather than re-rendered.
   */
  | { type: 'relay-frame'; text: string; /** The upstream's last word (OpenAI's `[DONE]`). */ last?: true };

export interface UpstreamFailure {
  kind: Exclude<FailureKind, 'ok'>;
  /** HTTP status, when the error came as a response rather than inside a stream. */
  status?: number;
  retryAfterMs?: number;
  /** The provider's error type (`rate_limit_error`, `server_error`, …). */
  type?: string;
  /** The provider's error code (`insufficient_quota`, `context_length_exceeded`, …). */
  code?: string;
  message: string;
}

/**
 * Translates one upstream stream into canonical events, frame by frame. Made afresh for each
 * attempt, and synchronous: the engine decodes each network read into frames and runs them all
 * through at once, so a stream costs a promise per read rather than several per event.
 */
export interface StreamParser {
  /** Appends the events `frame` yields (often none, sometimes several) to `out`. */
  push(frame: SseFrame, out: StreamEvent[]): void;
  /**
   * True once the stream has said its last word (OpenAI's `[DONE]`, an error event): the engine
   * reads no further, and later frames would be ignored.
   */
  readonly done: boolean;
}

export interface UpstreamRequest {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  /** The caller's own body, relayed (`ProviderAdapter.relay`): the attempt's record says so. */
  relayed?: true;
}

/** Response headers as undici gives them: lower-case names. */
export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** What an adapter needs to know about the target it builds a request for (never secrets). */
export interface TargetContext {
  baseUrl: string;
  routedModel: string;
  /** The connection lets a caller's body in this wire format be relayed (`relay: auto`); absent: it does not. */
  relay?: boolean;
}

/**
 * An embeddings request. `input` is what the caller sent: texts, or token arrays (which only
 * an OpenAI-dialect target can take).
 */
export interface EmbeddingsRequest {
  input: string[] | number[][];
  dimensions?: number;
  encodingFormat: 'float' | 'base64';
  user?: string;
}

export interface EmbeddingsResult {
  responseModel?: string;
  /** One vector per input, in input order: floats, or base64 of little-endian float32 when the provider sent that. */
  vectors: (number[] | string)[];
  usage?: Usage;
}

/** Embeddings, for providers that serve them. */
export interface EmbeddingsAdapter {
  buildRequest(request: EmbeddingsRequest, target: TargetContext): UpstreamRequest;
  /** Throws `UpstreamFailureError` when a 2xx body is really an error. */
  parseResponse(body: unknown): EmbeddingsResult;
}

/** Pure functions: no I/O, no clock (time comes in as `nowMs`), no secrets. */
export interface ProviderAdapter {
  /** The wire dialect this adapter speaks; passthrough fields of the same dialect are forwarded. */
  readonly dialect: UpstreamDialect;
  /** How this provider frames a streamed answer. */
  readonly framing: StreamFraming;
  buildRequest(request: ChatRequest, target: TargetContext): UpstreamRequest;
  /** Throws `UpstreamFailureError` when a 2xx body is really an error. */
  parseResponse(body: unknown): ChatResult;
  createStreamParser(): StreamParser;
  parseError(status: number, headers: ResponseHeaders, body: string, nowMs: number): UpstreamFailure;
  /** Absent when the provider's API has no embeddings this gateway speaks: such targets are skipped. */
  readonly embeddings?: EmbeddingsAdapter;
  /** The same provider's Responses API, which serves Responses callers (OpenAI and Azure OpenAI). */
  readonly responses?: ProviderAdapter;
  /**
   * The caller's own body (`ChatRequest.callerBody`, in this adapter's dialect) with the gateway's
   * edits spliced in: the model, the output cap, the usage request, a cache key, the fields the
   * target refuses. Undefined for a body that still needs translating (cache markers an OpenAI-wire
   * target does not take, a host's own tool-call ids); absent where no body of the dialect can be relayed.
   */
  readonly relay?: (body: string, request: ChatRequest, target: TargetContext) => UpstreamRequest | undefined;
}

/** Thrown by an adapter when a response that looked successful carries an error. */
export class UpstreamFailureError extends Error {
  readonly error: UpstreamFailure;

  constructor(error: UpstreamFailure) {
    super(error.message);
    this.name = 'UpstreamFailureError';
    this.error = error;
  }
}
