/**
 * Pre-flight input token estimate for the synchronous gate (docs/keys-and-budgets.md): what a request will cost
 * in tokens before any provider has counted it. Rate limits and budget reservations are charged
 * with it and corrected with the provider's own usage when the request ends, so it has to be
 * close and cheap, not exact.
 *
 * The o200k_base encoding (GPT-4o, GPT-4.1, GPT-5, o-series) is imported statically: building
 * its rank tables takes a few hundred milliseconds and tens of megabytes, which belongs to
 * process start, once, not to the first caller's latency or to every request. Other providers
 * tokenize differently; for them this is an approximation the settlement corrects.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { ChatMessage, ChatRequest, ContentPart, EmbeddingsRequest } from '../providers/spec.js';

/**
 * Chat framing OpenAI documents for its chat models: each message is wrapped in three tokens
 * (start, role separator, end) around its role and content, a `name` adds one, and the reply is
 * primed with three more.
 */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_NAME = 1;
const TOKENS_PRIMING_REPLY = 3;

/**
 * Images are billed by their pixels, which the gateway does not decode, at rates that vary by
 * model. OpenAI's flat low-detail charge is 85 tokens; a large high-detail image is on the order
 * of 1,500 tokens with GPT-4o and at most about 1,600 with Claude, so that is what an image is
 * assumed to cost until the provider's usage says otherwise. Counting a `data:` URL's base64
 * text instead would charge a 1 MB image as over 300,000 tokens.
 */
const IMAGE_TOKENS_LOW_DETAIL = 85;
const IMAGE_TOKENS = 1_600;

/**
 * The byte-pair encoder is superlinear in the length of a run without spaces (64,000 repeated
 * characters take seconds; a long run of emoji, minutes), so text is counted in slices of at
 * most this many characters, cut before a space where there is one. A cut inside a word can
 * change the count by a token; before a space it almost never does, since the encoder splits
 * words there anyway.
 */
const SLICE_CHARS = 256;

/**
 * Counting costs about 0.2 µs a character for ordinary text and up to about 4 µs for adversarial
 * text, all of it on the event loop. Past this many characters per request, the rest is
 * extrapolated at the tokens-per-character ratio of what was counted, which bounds the gate's
 * cost for a 10 MB body while keeping ordinary requests exact.
 */
const EXACT_CHARS = 32_768;

/** Special-token text (`<|endoftext|>`) in a prompt is ordinary text to a provider, not an error. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** Estimated input tokens of a chat request: messages, tool definitions and response schema. */
export function estimateInputTokens(request: ChatRequest): number {
  const counter = new TextCounter(EXACT_CHARS);
  let fixedTokens = TOKENS_PRIMING_REPLY;
  for (const message of request.messages) fixedTokens += countMessage(message, counter);
  for (const tool of request.tools ?? []) counter.add(JSON.stringify(tool));
  const format = request.responseFormat;
  if (format?.type === 'json_schema') counter.add(JSON.stringify(format));
  return fixedTokens + counter.tokens();
}

/** Estimated input tokens of an embeddings request: its texts, or the token arrays' lengths. */
export function estimateEmbeddingsTokens(request: EmbeddingsRequest): number {
  const counter = new TextCounter(EXACT_CHARS);
  let tokens = 0;
  for (const input of request.input) {
    if (typeof input === 'string') counter.add(input);
    else tokens += input.length;
  }
  return tokens + counter.tokens();
}

/** Adds a message's text to `counter`; returns the tokens it costs besides that text. */
function countMessage(message: ChatMessage, counter: TextCounter): number {
  counter.add(message.role);
  switch (message.role) {
    case 'system':
    case 'developer':
      counter.add(message.content);
      return TOKENS_PER_MESSAGE;
    case 'user':
      return TOKENS_PER_MESSAGE + countName(message.name, counter) + countParts(message.content, counter);
    case 'assistant':
      if (message.refusal !== undefined) counter.add(message.refusal);
      for (const call of message.toolCalls ?? []) {
        counter.add(call.name);
        counter.add(call.arguments);
      }
      return TOKENS_PER_MESSAGE + countName(message.name, counter) + countParts(message.content, counter);
    case 'tool':
      return TOKENS_PER_MESSAGE + countParts(message.content, counter);
  }
}

/** Adds a participant name to `counter`; returns its framing tokens. */
function countName(name: string | undefined, counter: TextCounter): number {
  if (name === undefined) return 0;
  counter.add(name);
  return TOKENS_PER_NAME;
}

/** Adds text parts to `counter`; returns the tokens of the image parts. */
function countParts(parts: readonly ContentPart[], counter: TextCounter): number {
  let imageTokens = 0;
  for (const part of parts) {
    if (part.type === 'text') counter.add(part.text);
    else imageTokens += part.detail === 'low' ? IMAGE_TOKENS_LOW_DETAIL : IMAGE_TOKENS;
  }
  return imageTokens;
}

/** Sums token counts of texts, exactly up to a character allowance and extrapolated past it. */
class TextCounter {
  #exactCharsLeft: number;
  #countedChars = 0;
  #countedTokens = 0;
  #uncountedChars = 0;

  constructor(exactChars: number) {
    this.#exactCharsLeft = exactChars;
  }

  add(text: string): void {
    const exact = text.length <= this.#exactCharsLeft ? text : text.slice(0, this.#exactCharsLeft);
    this.#uncountedChars += text.length - exact.length;
    this.#exactCharsLeft -= exact.length;
    this.#countedChars += exact.length;
    this.#countedTokens += rememberedCount(exact);
  }

  tokens(): number {
    if (this.#uncountedChars === 0) return this.#countedTokens;
    // Text goes uncounted only once the whole (non-zero) allowance has been counted.
    return this.#countedTokens + Math.ceil((this.#uncountedChars * this.#countedTokens) / this.#countedChars);
  }
}

/**
 * Most of what a request's tokens are counted from was in the last request too: a coding agent
 * sends the same system prompt and tool definitions (tens of thousands of characters) every turn,
 * and every request names the same roles. Counts are kept by text, the oldest dropped first once
 * the texts held pass this many characters (a few MB).
 */
const REMEMBERED_CHARS = 2_000_000;
const rememberedCounts = new Map<string, number>();
let rememberedChars = 0;

function rememberedCount(text: string): number {
  const known = rememberedCounts.get(text);
  if (known !== undefined) return known;
  const tokens = countSliced(text);
  rememberedCounts.set(text, tokens);
  rememberedChars += text.length;
  for (const oldest of rememberedCounts.keys()) {
    if (rememberedChars <= REMEMBERED_CHARS) break;
    rememberedCounts.delete(oldest);
    rememberedChars -= oldest.length;
  }
  return tokens;
}

function countSliced(text: string): number {
  let tokens = 0;
  let start = 0;
  while (start < text.length) {
    const end = sliceEnd(text, start);
    tokens += countTokens(text.slice(start, end), PLAIN_TEXT);
    start = end;
  }
  return tokens;
}

/** Where the slice starting at `start` ends: before the last space or newline in reach, if any. */
function sliceEnd(text: string, start: number): number {
  const limit = start + SLICE_CHARS;
  if (limit >= text.length) return text.length;
  const space = Math.max(text.lastIndexOf(' ', limit), text.lastIndexOf('\n', limit));
  if (space > start) return space;
  // Never split a surrogate pair: half a character would count as replacement bytes.
  return isHighSurrogate(text.charCodeAt(limit - 1)) ? limit - 1 : limit;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
