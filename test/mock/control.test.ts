import { afterEach, describe, expect, it, vi } from 'vitest';
import { startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { chatBody, chatPath, messagesBody, messagesPath, postJson, sleep } from './helpers.js';

const started: MockProvider[] = [];

async function start(options: Parameters<typeof startMockProvider>[0] = {}): Promise<MockProvider> {
  const mock = await startMockProvider(options);
  started.push(mock);
  return mock;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((mock) => mock.close()));
});

async function until(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

describe('control endpoints and attempt records', () => {
  it('records every request with its directives, headers and body', async () => {
    const mock = await start();
    await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?chunks=2', { stream: true }), {
      headers: { authorization: 'Bearer sk-test', 'x-mock': 'finish=length' },
    }).then((response) => response.text());
    await postJson(`${mock.url}${messagesPath}`, messagesBody('claude-mock'), { headers: { 'x-api-key': 'k' } }).then(
      (response) => response.text(),
    );
    expect(mock.attempts).toHaveLength(2);
    const [openai, anthropic] = mock.attempts;
    expect(openai).toMatchObject({
      n: 1,
      dialect: 'openai',
      path: '/v1/chat/completions',
      model: 'gpt-mock?chunks=2',
      name: 'gpt-mock',
      stream: true,
      directives: { chunks: '2', finish: 'length' },
      outcome: 'ok',
    });
    expect(openai?.headers.authorization).toBe('Bearer sk-test');
    expect(openai?.body).toMatchObject({ model: 'gpt-mock?chunks=2', stream: true });
    expect(anthropic).toMatchObject({ n: 2, dialect: 'anthropic', name: 'claude-mock', stream: false });
    expect(anthropic?.headers['x-api-key']).toBe('k');
    expect(mock.attemptsFor('claude-mock')).toHaveLength(1);
  });

  it('serves GET /_mock/attempts and POST /_mock/reset', async () => {
    const mock = await start();
    await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock')).then((response) => response.text());
    const listed = (await (await fetch(`${mock.url}/_mock/attempts`)).json()) as { data: { name: string }[] };
    expect(listed.data.map((attempt) => attempt.name)).toEqual(['gpt-mock']);
    expect((await fetch(`${mock.url}/_mock/reset`, { method: 'POST' })).status).toBe(200);
    expect(mock.attempts).toHaveLength(0);
  });

  it('answers unknown routes with a 404 and does not record them', async () => {
    const mock = await start();
    expect((await postJson(`${mock.url}/v1/completions`, chatBody('gpt-mock'))).status).toBe(404);
    expect(mock.attempts).toHaveLength(0);
  });

  it('settles the outcome when the answer is out, or as client_closed when the client leaves first', async () => {
    const mock = await start();
    const controller = new AbortController();
    const response = await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?chunks=100&chunk_ms=20', { stream: true }), {
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    expect(mock.attempts[0]?.outcome).toBeUndefined();
    controller.abort();
    await until(() => mock.attempts[0]?.outcome !== undefined);
    expect(mock.attempts[0]?.outcome).toBe('client_closed');
  });

  it('keeps at least maxAttempts of the latest attempts', async () => {
    const mock = await start({ maxAttempts: 3 });
    for (let index = 0; index < 8; index++) {
      await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock')).then((response) => response.text());
    }
    expect(mock.attempts.length).toBeGreaterThanOrEqual(3);
    expect(mock.attempts.length).toBeLessThan(6);
    expect(mock.attempts.at(-1)?.n).toBe(8);
  });

  it('close() ends silent and stalled connections at once', async () => {
    const mock = await start();
    const silent = postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?silence'), { signal: AbortSignal.timeout(10_000) });
    const stalled = postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?stall_after=1', { stream: true }), {
      signal: AbortSignal.timeout(10_000),
    }).then((response) => response.text());
    const delayed = postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?headers_delay_ms=9000'), {
      signal: AbortSignal.timeout(10_000),
    });
    await until(() => mock.attempts.length === 3);
    await sleep(50);
    const startedAt = performance.now();
    await mock.close();
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    const results = await Promise.allSettled([silent, stalled, delayed]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
  });

  it('prints one line per attempt to stderr when log is on', async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((line: string | Uint8Array) => {
      lines.push(String(line));
      return true;
    });
    try {
      const mock = await start({ log: true });
      await postJson(`${mock.url}${chatPath}`, chatBody('gpt-mock?status=503')).then((response) => response.text());
    } finally {
      spy.mockRestore();
    }
    expect(lines).toEqual(['mock #1 openai /v1/chat/completions gpt-mock?status=503 stream=false -> status 503\n']);
  });

  it('listens on the requested host and port', async () => {
    const probe = await start();
    const port = probe.port;
    await probe.close();
    const mock = await start({ port, host: '127.0.0.1' });
    expect(mock.url).toBe(`http://127.0.0.1:${port}`);
  });
});
