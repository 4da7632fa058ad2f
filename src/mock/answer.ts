/**
 * The deterministic content of every mock answer. Chunk i never depends on the total, so
 * `mockAnswerText(k)` is a prefix of `mockAnswerText(n)` for k ≤ n and a truncated stream is
 * recognisable by comparison alone.
 */
import type { AnswerPlan } from './wire.js';

/** Chunk 0 is `w0`, chunk i > 0 is ` w<i>`: the text of 3 chunks is `w0 w1 w2`. */
function mockChunkText(index: number): string {
  return index === 0 ? 'w0' : ` w${index}`;
}

export function mockAnswerText(chunks: number): string {
  let text = '';
  for (let index = 0; index < chunks; index++) text += mockChunkText(index);
  return text;
}

/**
 * Whether word `index` is replaced in an answer degraded by `share` (0..1): exactly
 * ⌊n × share⌋ of the first n words, spread evenly. The choice depends on the index alone, so a
 * degraded answer is the same for the same request, and a cut one is still a prefix of the whole.
 */
export function isDegradedWord(index: number, share: number): boolean {
  // The epsilon keeps products such as 0.29 × 100 = 28.999… from losing a word.
  return Math.floor((index + 1) * share + 1e-9) > Math.floor(index * share + 1e-9);
}

/** The answer's chunks with a share of its words replaced: `w3` becomes `x3`, so a canary sees a weaker answer. */
export function mockDegradedPieces(chunks: number, share: number): string[] {
  const pieces: string[] = [];
  for (let index = 0; index < chunks; index++) {
    const text = mockChunkText(index);
    pieces.push(isDegradedWord(index, share) ? text.replace('w', 'x') : text);
  }
  return pieces;
}

/** `text` in `count` pieces of nearly equal length (at least one, at most one per character). */
export function splitIntoPieces(text: string, count: number): string[] {
  const characters = Array.from(text);
  const pieceCount = Math.max(1, Math.min(count, characters.length));
  const pieces: string[] = [];
  for (let index = 0; index < pieceCount; index++) {
    pieces.push(characters.slice(Math.floor((index * characters.length) / pieceCount), Math.floor(((index + 1) * characters.length) / pieceCount)).join(''));
  }
  return pieces;
}

/** Every prompt token, the cached ones (read and written) included, as OpenAI and Gemini count them. */
export function promptTokens(plan: AnswerPlan): number {
  return plan.inputTokens + plan.cache.readTokens + plan.cache.writeTokens;
}

/** The whole text of a plan's answer. */
export function planText(plan: AnswerPlan): string {
  return plan.pieces ? plan.pieces.join('') : mockAnswerText(plan.pieceCount);
}

export function planPieceText(plan: AnswerPlan, index: number): string {
  return plan.pieces ? (plan.pieces[index] ?? '') : mockChunkText(index);
}

export function planPieceJson(plan: AnswerPlan, index: number): string {
  return plan.pieces ? JSON.stringify(plan.pieces[index] ?? '') : mockChunkJson(index);
}

const chunkJsonCache: string[] = [];
// Bounds the cache for huge `chunks=` values; later chunks are cheap to serialise anyway.
const cachedChunkCount = 4096;

/** `JSON.stringify(mockChunkText(index))`, memoised because every stream serialises the same chunks. */
function mockChunkJson(index: number): string {
  let json = chunkJsonCache[index];
  if (json === undefined) {
    json = JSON.stringify(mockChunkText(index));
    if (index < cachedChunkCount) chunkJsonCache[index] = json;
  }
  return json;
}

/**
 * Input tokens are `ceil(characters / 4)` over all text in the request: string contents, `text`
 * fields of content parts (nested tool results included) and the system prompt, in each format's
 * place for them: OpenAI / Anthropic / Bedrock `messages[].content` and `system`, Gemini
 * `contents[].parts` and `systemInstruction.parts`, Responses `input` (a string, or items'
 * `content`) and `instructions`.
 */
export function countInputTokens(body: Record<string, unknown>): number {
  let characters = textLength(body.system) + turnsLength(body.messages, 'content') + turnsLength(body.contents, 'parts');
  characters += textLength(body.instructions) + (typeof body.input === 'string' ? body.input.length : turnsLength(body.input, 'content'));
  // Gemini's REST API takes snake_case field names too.
  const instruction = body.systemInstruction ?? body.system_instruction;
  if (isRecord(instruction)) characters += textLength(instruction.parts);
  return Math.ceil(characters / 4);
}

function turnsLength(turns: unknown, contentKey: 'content' | 'parts'): number {
  if (!Array.isArray(turns)) return 0;
  let characters = 0;
  for (const turn of turns) {
    if (isRecord(turn)) characters += textLength(turn[contentKey]);
  }
  return characters;
}

/** The characters of text in a content value (a string, or parts with `text` or nested content), as input tokens count them. */
export function textLength(content: unknown): number {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) return 0;
  let characters = 0;
  for (const part of content) {
    if (typeof part === 'string') characters += part.length;
    else if (isRecord(part)) {
      if (typeof part.text === 'string') characters += part.text.length;
      else if (isRecord(part.toolResult)) characters += textLength(part.toolResult.content);
      else characters += textLength(part.content);
    }
  }
  return characters;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value when it is a JSON object, for reading optional nested fields. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}
