import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { formatIssue } from '../../src/config/config-issue.js';
import { parseConfig } from '../../src/config/parse-config.js';

const run = promisify(execFile);
const directory = mkdtempSync(join(tmpdir(), 'switchyard-check-'));

function issuesOf(yaml: string, env: NodeJS.ProcessEnv = {}): string[] {
  return parseConfig(yaml, env).issues.map(formatIssue);
}

describe('config validation', () => {
  it('names the YAML path, the bad value and the line of every error, reference errors included', () => {
    const issues = issuesOf(`
connections:
  bedrock-standby: { provider: mock }
  openai-prod: { provider: openai, api_key: sk-test, max_in_flight: "lots" }
routes:
  support:
    retries: 7
    targets:
      - { connection: openai-prod, model: gpt-4.1 }
      - { connection: bedrok, model: x }
`);
    expect(issues).toEqual([
      expect.stringMatching(/^connections\.openai-prod\.max_in_flight: .*expected number.*\(got "lots"\) \(line 4\)$/),
      expect.stringMatching(/^routes\.support\.retries: .*3.*\(got 7\) \(line 7\)$/),
      'routes.support.targets[1].connection: unknown connection "bedrok" (line 10)',
    ]);
  });

  it('suggests the connection a misspelt reference meant', () => {
    expect(
      issuesOf(`
connections:
  bedrock-standby: { provider: mock }
routes:
  support:
    targets:
      - { connection: bedrock-standby, model: a }
      - { connection: bedrok-standby, model: b }
`),
    ).toEqual(['routes.support.targets[1].connection: unknown connection "bedrok-standby" (did you mean "bedrock-standby"?) (line 8)']);
  });

  it('interpolates ${env:NAME} and says which variable is missing', () => {
    const yaml = `
admin: { token: "\${env:ADMIN_TOKEN}" }
connections:
  openai-prod: { provider: openai, api_key: "\${env:OPENAI_API_KEY}" }
`;
    expect(issuesOf(yaml)).toEqual([
      'connections.openai-prod.api_key: required for provider openai (environment variable OPENAI_API_KEY is not set) (line 4)',
    ]);
    const parsed = parseConfig(yaml, { OPENAI_API_KEY: 'sk-from-env', ADMIN_TOKEN: 'secret' });
    expect(parsed.config?.connections['openai-prod']?.api_key).toBe('sk-from-env');
    expect(parsed.config?.admin.token).toBe('secret');
    // An unset variable makes an optional setting absent, not an error.
    expect(parseConfig(yaml, { OPENAI_API_KEY: 'sk' }).config?.admin.token).toBeUndefined();
  });

  it('leaves out an optional connection without a key, with its targets and emptied routes', () => {
    const parsed = parseConfig(
      `
connections:
  local: { provider: mock }
  openai: { provider: openai, api_key: "\${env:OPENAI_API_KEY}", optional: true }
routes:
  both: { targets: [{ connection: openai, model: gpt-4.1 }, { connection: local, model: m }] }
  only-openai: { targets: [{ connection: openai, model: gpt-4.1 }] }
`,
      {},
    );
    expect(parsed.issues).toEqual([]);
    expect(Object.keys(parsed.config!.connections)).toEqual(['local']);
    expect(Object.keys(parsed.config!.routes)).toEqual(['both']);
    expect(parsed.config!.routes.both!.targets.map((target) => target.connection)).toEqual(['local']);
    expect(parsed.notes).toHaveLength(2);
  });

  it('reports YAML syntax errors with their line', () => {
    expect(issuesOf('routes:\n  a: [unclosed\n')[0]).toMatch(/^\(yaml\): .*\(line \d+\)$/);
  });

  it('never quotes the source text around a YAML syntax error', () => {
    const issues = issuesOf('connections:\n  a: { provider: openai, api_key: sk-live-secret-0001 ] }\n');
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) expect(issue).not.toMatch(/sk-live-secret|: "/);
  });

  it('rejects unknown keys rather than ignoring a typo', () => {
    expect(issuesOf('server: { prot: 4000 }\n')).toEqual(['server.prot: unknown key (did you mean "port"?) (line 1)']);
  });

  it('the shipped demo config is valid', () => {
    expect(issuesOf(readDemo())).toEqual([]);
  });
});

function readDemo(): string {
  return readFileSync(new URL('../../examples/demo.yaml', import.meta.url), 'utf8');
}

describe('switchyard check-config (the CLI)', () => {
  const cli = join(process.cwd(), 'dist', 'src', 'cli', 'main.js');

  it('exits 1 and prints every error with its path', async () => {
    const file = join(directory, 'bad.yaml');
    writeFileSync(file, 'connections:\n  a: { provider: mock }\nroutes:\n  r: { retries: 9, targets: [{ connection: b, model: m }] }\n');
    const failure = await run(process.execPath, [cli, 'check-config', file]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain('routes.r.retries:');
  });

  it('exits 0 on a good file', async () => {
    const { stdout } = await run(process.execPath, [cli, 'check-config', join(process.cwd(), 'examples', 'demo.yaml')]);
    expect(stdout).toMatch(/ok \(\d+ connections?, \d+ routes?\)/);
  });
});
