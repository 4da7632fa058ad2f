/** Small HTTP, SSE and event-stream helpers for the mock provider tests (global fetch, bounded reads). */
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

export interface Frame {
  event?: string;
  data: string;
}

export async function postJson(
  url: string,
  body: unknown,
  init: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: init.signal ?? AbortSignal.timeout(5_000),
  });
}

export interface StreamRead {
  text: string;
  /** The same body as bytes (Bedrock streams are binary). */
  bytes: Uint8Array;
  /** The body finished normally. */
  ended: boolean;
  /** The body failed (a cut connection). */
  error?: unknown;
  /** Nothing arrived for `idleMs` and the read was abandoned (a stall). */
  idle: boolean;
  /** Milliseconds from the start of the read to each received piece of the body. */
  arrivalsMs: number[];
}

/** Reads a body to its end, its failure, or `idleMs` of silence, whichever comes first. */
export async function readBody(response: Response, idleMs = 2_000): Promise<StreamRead> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const startedAt = performance.now();
  const parts: Uint8Array[] = [];
  const read: StreamRead = { text: '', bytes: new Uint8Array(), ended: false, idle: false, arrivalsMs: [] };
  const done = (): StreamRead => {
    read.bytes = Buffer.concat(parts);
    return read;
  };
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<'idle'>((resolve) => {
      timer = setTimeout(() => resolve('idle'), idleMs);
    });
    try {
      const next = await Promise.race([reader.read(), idle]);
      if (next === 'idle') {
        read.idle = true;
        await reader.cancel().catch(() => undefined);
        return done();
      }
      if (next.done) {
        read.ended = true;
        return done();
      }
      read.arrivalsMs.push(performance.now() - startedAt);
      parts.push(next.value);
      read.text += decoder.decode(next.value, { stream: true });
    } catch (error) {
      read.error = error;
      return done();
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Splits SSE text into frames; a trailing block without its blank line is dropped, as in EventSource. */
export function parseFrames(text: string): Frame[] {
  const blocks = text.split('\n\n');
  blocks.pop();
  return blocks
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const frame: Frame = { data: '' };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) frame.event = line.slice('event: '.length);
        else if (line.startsWith('data: ')) data.push(line.slice('data: '.length));
      }
      frame.data = data.join('\n');
      return frame;
    });
}

export interface ChatChunk {
  choices: { index: number; delta: Record<string, unknown>; finish_reason: string | null }[];
  usage?: unknown;
}

/** The text carried by OpenAI content chunks. */
export function openaiText(frames: Frame[]): string {
  return frames
    .filter((frame) => frame.data !== '[DONE]')
    .map((frame) => JSON.parse(frame.data) as ChatChunk)
    .map((chunk) => chunk.choices[0]?.delta.content)
    .filter((content): content is string => typeof content === 'string')
    .join('');
}

/** OpenAI chunks that carry non-empty content. */
export function openaiContentChunks(frames: Frame[]): number {
  return frames.filter((frame) => {
    if (frame.data === '[DONE]') return false;
    const content = (JSON.parse(frame.data) as ChatChunk).choices[0]?.delta.content;
    return typeof content === 'string' && content !== '';
  }).length;
}

/** The text carried by Anthropic text deltas. */
export function anthropicText(frames: Frame[]): string {
  return frames
    .filter((frame) => frame.event === 'content_block_delta')
    .map((frame) => JSON.parse(frame.data) as { delta: { text?: string } })
    .map((event) => event.delta.text ?? '')
    .join('');
}

export function sleep(delayMs: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, delayMs));
}

export const chatPath = '/v1/chat/completions';
export const messagesPath = '/v1/messages';

export function chatBody(model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model, messages: [{ role: 'user', content: 'Say hello to the mock.' }], ...extra };
}

export function messagesBody(model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model, max_tokens: 64, messages: [{ role: 'user', content: 'Say hello to the mock.' }], ...extra };
}

/** `/v1beta/models/{model}:generateContent` or `:streamGenerateContent?alt=sse`, the model URL-encoded as clients send it. */
export function geminiPath(model: string, stream = false): string {
  const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return `/v1beta/models/${encodeURIComponent(model)}:${method}`;
}

export function geminiBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { contents: [{ role: 'user', parts: [{ text: 'Say hello to the mock.' }] }], ...extra };
}

/** The JSON of each complete `data:` event of a Gemini stream (CRLF-framed). */
export function geminiChunks(text: string): string[] {
  const events = text.split('\r\n\r\n');
  events.pop();
  return events.map((event) => {
    if (!event.startsWith('data: ')) throw new Error(`not a data event: ${event}`);
    return event.slice('data: '.length);
  });
}

export interface GeminiChunk {
  candidates?: {
    content: { parts: { text?: string; functionCall?: { name: string; args: unknown } }[]; role: string };
    finishReason?: string;
    finishMessage?: string;
    index: number;
  }[];
  usageMetadata?: { promptTokenCount: number; candidatesTokenCount: number; totalTokenCount: number };
  modelVersion?: string;
  responseId?: string;
  promptFeedback?: { blockReason: string };
}

/** The text carried by Gemini stream chunks. */
export function geminiText(chunks: string[]): string {
  return chunks
    .map((chunk) => JSON.parse(chunk) as GeminiChunk)
    .map((chunk) => chunk.candidates?.[0]?.content.parts.map((part) => part.text ?? '').join('') ?? '')
    .join('');
}

/** `/model/{modelId}/converse` or `/converse-stream`, the model id URL-encoded as the AWS SDKs send it. */
export function bedrockPath(model: string, stream = false): string {
  return `/model/${encodeURIComponent(model)}/${stream ? 'converse-stream' : 'converse'}`;
}

export function bedrockBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { messages: [{ role: 'user', content: [{ text: 'Say hello to the mock.' }] }], ...extra };
}

export interface EventStreamMessage {
  headers: Record<string, string>;
  payload: string;
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** Splits a binary event stream into its messages (checking every CRC); a trailing partial message is dropped. */
export function decodeEventStream(bytes: Uint8Array): EventStreamMessage[] {
  const messages: EventStreamMessage[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  while (offset + 4 <= bytes.byteLength) {
    const length = view.getUint32(offset);
    if (offset + length > bytes.byteLength) break;
    const message = codec.decode(bytes.subarray(offset, offset + length));
    const headers: Record<string, string> = {};
    for (const [name, header] of Object.entries(message.headers)) headers[name] = String(header.value);
    messages.push({ headers, payload: toUtf8(message.body) });
    offset += length;
  }
  return messages;
}

/** The `:event-type` (or `:exception-type`) of each message, in order. */
export function eventTypes(messages: EventStreamMessage[]): string[] {
  return messages.map((message) => message.headers[':event-type'] ?? `exception:${message.headers[':exception-type']}`);
}

/** `/v1/projects/p/locations/{location}/publishers/{publisher}/models/{model}:{method}`, the model URL-encoded as clients send it. */
export function vertexPath(publisher: 'anthropic' | 'google', model: string, method: string, location = 'us-east5'): string {
  return `/v1/projects/proj-1/locations/${location}/publishers/${publisher}/models/${encodeURIComponent(model)}:${method}`;
}

/** Claude's Messages body as Vertex takes it: `anthropic_version`, no `model`. */
export function vertexClaudeBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { anthropic_version: 'vertex-2023-10-16', max_tokens: 64, messages: [{ role: 'user', content: 'Say hello to the mock.' }], ...extra };
}

/** An unsigned JWT (the mock does not check signatures) with the given claims. */
export function jwtAssertion(claims: Record<string, unknown>): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}.c2lnbmF0dXJl`;
}

/** A service account's assertion for `tokenUri`, with the cloud-platform scope. */
export function serviceAccountAssertion(tokenUri: string, extra: Record<string, unknown> = {}): string {
  const nowS = Math.floor(Date.now() / 1000);
  return jwtAssertion({
    iss: 'switchyard-test@proj-1.iam.gserviceaccount.com',
    scope: 'https://www.googleapis.com/auth/cloud-platform',
    aud: tokenUri,
    iat: nowS,
    exp: nowS + 3600,
    ...extra,
  });
}

/** Posts a JWT-bearer grant to `tokenUri`. */
export async function postTokenGrant(tokenUri: string, assertion: string, grantType = 'urn:ietf:params:oauth:grant-type:jwt-bearer'): Promise<Response> {
  return fetch(tokenUri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: grantType, assertion }).toString(),
    signal: AbortSignal.timeout(5_000),
  });
}

/** An access token from the mock's token endpoint, as the authorization header Vertex routes require. */
export async function vertexAuthorization(mockUrl: string, directives = ''): Promise<Record<string, string>> {
  const tokenUri = `${mockUrl}/token${directives}`;
  const response = await postTokenGrant(tokenUri, serviceAccountAssertion(tokenUri));
  const { access_token } = (await response.json()) as { access_token: string };
  return { authorization: `Bearer ${access_token}` };
}
