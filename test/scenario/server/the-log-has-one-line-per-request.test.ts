import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hello } from '../scenario-helpers.js';
import { postChat } from '../../support/start-gateway.js';

const CLI = join(import.meta.dirname, '../../../dist/src/cli/main.js');
const CONFIG = `
store: { kind: sqlite, path: ":memory:" }
auth: { mode: none }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  demo-failover:
    retries: 0
    targets:
      - { connection: mock-openai, model: "gpt-down?status=503" }
      - { connection: mock-openai, model: gpt-standby }
`;

interface RunningServe {
  child: ChildProcess;
  lines: string[];
  /** Resolves with the first output line (so far or to come) that matches, within 10 s. */
  lineMatching(pattern: RegExp): Promise<string>;
}

let running: RunningServe | undefined;
let directory: string | undefined;

afterEach(async () => {
  const child = running?.child;
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  running = undefined;
  if (directory) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

function startServe(logFormat: string): RunningServe {
  directory = mkdtempSync(join(tmpdir(), 'switchyard-log-'));
  const configFile = join(directory, 'config.yaml');
  writeFileSync(configFile, CONFIG);
  const child = spawn(process.execPath, [CLI, 'serve', '--config', configFile, '--port', '0', '--host', '127.0.0.1'], {
    env: { PATH: process.env.PATH, LOG_FORMAT: logFormat },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let buffered = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => {
    buffered += text;
    const complete = buffered.split('\n');
    buffered = complete.pop()!;
    lines.push(...complete);
    for (const waiter of waiters) waiter();
  });
  const lineMatching = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const line = lines.find((candidate) => pattern.test(candidate));
        if (line === undefined) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(line);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no output line matched ${pattern} within 10 s; got:\n${lines.join('\n')}`));
      }, 10_000);
      waiters.add(check);
      check();
    });
  running = { child, lines, lineMatching };
  return running;
}

async function urlOf(serve: RunningServe): Promise<string> {
  const line = await serve.lineMatching(/listening on http:\/\/127\.0\.0\.1:\d+/);
  return /http:\/\/127\.0\.0\.1:\d+/.exec(line)![0];
}

describe('the log has one line per request, readable or JSON', () => {
  it('LOG_FORMAT=pretty: a served request and a refused one each get one readable line', async () => {
    const serve = startServe('pretty');
    const url = await urlOf(serve);
    const served = await postChat(url, { model: 'demo-failover', messages: hello });
    expect(served.status).toBe(200);
    const servedId = served.headers.get('x-request-id')!;
    const refused = await postChat(url, { model: 'no-such-route', messages: hello });
    expect(refused.status).toBe(404);
    const refusedId = refused.headers.get('x-request-id')!;

    const servedLine = await serve.lineMatching(new RegExp(servedId));
    expect(servedLine).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${servedId} 200 ok demo-failover → mock-openai/gpt-standby \\(2 attempts\\) \\d+ ms$`));
    const refusedLine = await serve.lineMatching(new RegExp(refusedId));
    expect(refusedLine).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${refusedId} 404 rejected no-such-route \\d+ ms model_not_found: The model \`no-such-route\``));
    expect(serve.lines.filter((line) => line.includes(servedId))).toHaveLength(1);
    expect(serve.lines.every((line) => !line.startsWith('{'))).toBe(true);
  });

  it('LOG_FORMAT=json: JSON lines with ISO times, one `request` entry per request', async () => {
    const serve = startServe('json');
    const url = await urlOf(serve);
    const served = await postChat(url, { model: 'demo-failover', messages: hello });
    const servedId = served.headers.get('x-request-id')!;
    const entry = JSON.parse(await serve.lineMatching(new RegExp(servedId))) as Record<string, unknown>;
    expect(entry).toMatchObject({
      msg: 'request',
      request_id: servedId,
      status: 'ok',
      http_status: 200,
      route: 'demo-failover',
      served_by: 'mock-openai/gpt-standby',
      attempts: 2,
    });
    expect(entry.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(serve.lines.every((line) => line.startsWith('{'))).toBe(true);
  });

  it('a LOG_FORMAT it does not know is refused at start with a message naming it', async () => {
    const serve = startServe('fancy');
    const stderr: string[] = [];
    serve.child.stderr!.setEncoding('utf8').on('data', (text: string) => stderr.push(text));
    const code = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('serve kept running with an unknown LOG_FORMAT')), 10_000);
      serve.child.once('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    expect(code).toBe(1);
    expect(stderr.join('')).toBe('switchyard: LOG_FORMAT must be "pretty" or "json", got "fancy"\n');
  });
});
