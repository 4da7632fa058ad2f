/** Small HTTP and SSE helpers for the mock provider tests (global fetch, bounded reads). */

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
  const read: StreamRead = { text: '', ended: false, idle: false, arrivalsMs: [] };
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
        return read;
      }
      if (next.done) {
        read.ended = true;
        return read;
      }
      read.arrivalsMs.push(performance.now() - startedAt);
      read.text += decoder.decode(next.value, { stream: true });
    } catch (error) {
      read.error = error;
      return read;
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
