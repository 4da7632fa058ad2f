import { Agent, request } from 'undici';
import { mockAnswerText } from '../src/mock/answer.js';
import { chatPath, contentChunks, isGateway, requestBody, type PathName, type ScenarioName } from './scenarios.js';

const verifyTimeoutMs = 10_000;

/**
 * Sends one request of `scenario` down `path` and checks the answer is what the mock produces:
 * the full text, and for streaming a real SSE stream of ≥ 50 content events ending in
 * `data: [DONE]`. Returns the problems found (empty when the answer is right), so the bench can
 * refuse to measure a path that does not work rather than measure its error responses.
 */
export async function verifyPath(baseUrl: string, path: PathName, scenario: ScenarioName, headers: Record<string, string> = {}): Promise<string[]> {
  // Its own Agent, closed afterwards, so verification leaves no socket open during the load.
  const dispatcher = new Agent();
  try {
    const answer = await request(`${baseUrl}${chatPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: requestBody(path, scenario),
      dispatcher,
      signal: AbortSignal.timeout(verifyTimeoutMs),
    });
    const text = await answer.body.text();
    if (answer.statusCode !== 200) return [`status ${answer.statusCode}: ${text.slice(0, 300)}`];
    const contentType = String(answer.headers['content-type'] ?? '');
    const problems = scenario === 'streaming' ? checkStream(contentType, text) : checkCompletion(contentType, text);
    const attempts = answer.headers['x-switchyard-attempts'];
    if (isGateway(path) && attempts !== '1') problems.push(`x-switchyard-attempts is ${String(attempts)}, expected 1`);
    return problems;
  } catch (error) {
    return [`request failed: ${error instanceof Error ? error.message : String(error)}`];
  } finally {
    await dispatcher.close();
  }
}

const expectedText = mockAnswerText(contentChunks);

function checkCompletion(contentType: string, text: string): string[] {
  if (!contentType.startsWith('application/json')) return [`content-type is "${contentType}", expected application/json`];
  const content = completionContent(text);
  return content === expectedText ? [] : [`content is ${describeText(content)}, expected the ${contentChunks}-chunk mock text`];
}

function checkStream(contentType: string, text: string): string[] {
  if (!contentType.startsWith('text/event-stream')) return [`content-type is "${contentType}", expected text/event-stream`];
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
  if (contentEvents < 50) problems.push(`${contentEvents} content events, expected at least 50`);
  if (content !== expectedText) problems.push(`streamed text is ${describeText(content)}, expected the ${contentChunks}-chunk mock text`);
  return problems;
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
