import { Agent, request } from 'undici';
import { mockAnswerText } from '../src/mock/answer.js';
import { chatPath, isGateway, requestBody, type Answer, type PathKind } from './scenarios.js';

const verifyTimeoutMs = 10_000;
// A stream must carry nearly every chunk as an event of its own (the brief of the first bench: ≥ 50 of 64).
const minContentEventShare = 0.75;

export interface Verification {
  /** Empty when the answer is right. */
  problems: string[];
  /** The SSE events of a streamed answer (`data: [DONE]` included); 0 for a completion. */
  events: number;
}

/**
 * Sends one request for `answer` down a path and checks it is what the mock produces: the full
 * text, and for a stream a real SSE stream with an event per chunk (or nearly) ending in
 * `data: [DONE]`. The bench refuses to measure a path that does not work rather than measure its
 * error responses.
 */
export async function verifyPath(baseUrl: string, kind: PathKind, answer: Answer, stream: boolean, headers: Record<string, string> = {}): Promise<Verification> {
  // Its own Agent, closed afterwards, so verification leaves no socket open during the load.
  const dispatcher = new Agent();
  try {
    const response = await request(`${baseUrl}${chatPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: requestBody(kind, answer, stream),
      dispatcher,
      signal: AbortSignal.timeout(verifyTimeoutMs),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) return { problems: [`status ${response.statusCode}: ${text.slice(0, 300)}`], events: 0 };
    const contentType = String(response.headers['content-type'] ?? '');
    const verification = stream ? checkStream(contentType, text, answer.chunks) : { problems: checkCompletion(contentType, text, answer.chunks), events: 0 };
    const attempts = response.headers['x-switchyard-attempts'];
    // Builds before the header existed leave it out; one that sends it must have made one attempt.
    if (isGateway(kind) && attempts !== undefined && attempts !== '1') verification.problems.push(`x-switchyard-attempts is ${String(attempts)}, expected 1`);
    return verification;
  } catch (error) {
    return { problems: [`request failed: ${error instanceof Error ? error.message : String(error)}`], events: 0 };
  } finally {
    await dispatcher.close();
  }
}

function checkCompletion(contentType: string, text: string, chunks: number): string[] {
  if (!contentType.startsWith('application/json')) return [`content-type is "${contentType}", expected application/json`];
  const content = completionContent(text);
  return content === mockAnswerText(chunks) ? [] : [`content is ${describeText(content)}, expected the ${chunks}-chunk mock text`];
}

function checkStream(contentType: string, text: string, chunks: number): Verification {
  if (!contentType.startsWith('text/event-stream')) return { problems: [`content-type is "${contentType}", expected text/event-stream`], events: 0 };
  const data = sseData(text);
  const problems: string[] = [];
  if (data.at(-1) !== '[DONE]') problems.push('the stream does not end with data: [DONE]');
  let content = '';
  let contentEvents = 0;
  for (const payload of data) {
    if (payload === '[DONE]') continue;
    const delta = deltaContent(payload);
    if (delta === undefined) continue;
    if (delta !== '') contentEvents += 1;
    content += delta;
  }
  const minContentEvents = Math.ceil(chunks * minContentEventShare);
  if (contentEvents < minContentEvents) problems.push(`${contentEvents} content events, expected at least ${minContentEvents}`);
  if (content !== mockAnswerText(chunks)) problems.push(`streamed text is ${describeText(content)}, expected the ${chunks}-chunk mock text`);
  return { problems, events: data.length };
}

/** The `data:` payloads of an SSE body, one per event (multi-line data joined with \n, as EventSource does). */
function sseData(text: string): string[] {
  const payloads: string[] = [];
  for (const block of text.replace(/\r\n?/g, '\n').split('\n\n')) {
    const lines = block.split('\n').filter((line) => line.startsWith('data:'));
    if (lines.length === 0) continue;
    payloads.push(lines.map((line) => line.slice(line.startsWith('data: ') ? 6 : 5)).join('\n'));
  }
  return payloads;
}

function completionContent(text: string): string | undefined {
  const choice = firstChoice(parseObject(text));
  const message = choice?.message;
  return isObject(message) && typeof message.content === 'string' ? message.content : undefined;
}

function deltaContent(payload: string): string | undefined {
  const choice = firstChoice(parseObject(payload));
  const delta = choice?.delta;
  return isObject(delta) && typeof delta.content === 'string' ? delta.content : undefined;
}

function firstChoice(body: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const choices = body?.choices;
  const first: unknown = Array.isArray(choices) ? choices[0] : undefined;
  return isObject(first) ? first : undefined;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeText(text: string | undefined): string {
  if (text === undefined) return 'missing';
  return text.length > 60 ? `"${text.slice(0, 60)}…" (${text.length} chars)` : `"${text}"`;
}
