import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-every-error-'));

afterAll(() => rmSync(directory, { recursive: true, force: true }));

it('check-config reports schema and reference errors together, each at its own line, with did-you-mean for keys and values', async () => {
  const file = join(directory, 'config.yaml');
  writeFileSync(
    file,
    `server:
  host: 127.0.0.1
  prot: 4000
connections:
  bedrock-standby: { provider: mock }
  openai-prod: { provider: openai, api_key: sk-test, max_in_flight: "lots" }
store:
  kind: sqlite
  pth: ./switchyard.db
routes:
  support:
    retries: 7
    strategy: wieghted
    targets:
      - { connection: openai-prod, model: gpt-4.1 }
      - { connection: bedrok-standby, model: x }
    tiemouts: { idle_ms: 1000 }
`,
  );
  const { code, stdout, stderr } = await runCli(['check-config', file]);
  expect(code).toBe(1);
  expect(stdout).toBe('');
  expect(stderr.trimEnd().split('\n')).toEqual([
    `${file}: 7 errors`,
    '  server.prot: unknown key (did you mean "port"?) (line 3)',
    '  connections.openai-prod.max_in_flight: Invalid input: expected number, received string (got "lots") (line 6)',
    '  store.pth: unknown key (did you mean "path"?) (line 9)',
    '  routes.support.retries: Too big: expected number to be <=3 (got 7) (line 12)',
    '  routes.support.strategy: Invalid option: expected one of "priority"|"weighted"|"least_latency" (got "wieghted") (did you mean "weighted"?) (line 13)',
    '  routes.support.targets[1].connection: unknown connection "bedrok-standby" (did you mean "bedrock-standby"?) (line 16)',
    '  routes.support.tiemouts: unknown key (did you mean "timeouts"?) (line 17)',
  ]);
});
