import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { locateCodex, runCodex } from '../../support/codex-cli.js';
import { describeRun } from '../../support/offline-cli.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

// Codex CLI on a model it knows declares its tools; every turn of the target calls `view_image`
// (the mock's `tool_call` directive: harmless, it only reads) with arguments generated from the
// schema Codex declared. The turn after the tool's output is answered with text, so `exec` ends
// after one tool round instead of spinning.
const RUN_TIMEOUT_MS = 60_000;
const MODEL = 'gpt-5.1-codex';
const install = locateCodex();
const inCi = process.env.CI === 'true';

let gateway: TestGateway;

describe.skipIf('missing' in install && !inCi)('a Codex CLI tool loop against the mock', () => {
  beforeAll(async () => {
    gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  coding:
    aliases: ["gpt-*"]
    targets: [{ connection: mock-openai, model: "gpt-coding?tool_call=view_image" }]
`);
  });
  afterAll(() => gateway?.close());

  it(
    'calls the tool with schema-valid arguments, sends its output back, and ends with the text answer',
    async () => {
      if ('missing' in install) throw new Error(install.missing);
      const run = await runCodex(install.launcher, { baseUrl: gateway.url, model: MODEL, prompt: 'Look at the diagram and describe it', timeoutMs: RUN_TIMEOUT_MS });
      expect(run.exitCode, describeRun('codex exec', run, RUN_TIMEOUT_MS)).toBe(0);
      expect(run.stdout).toContain(mockAnswerText(8));
      expect(run.outsideConnections).toEqual([]);

      const turns = gateway.mock.attemptsFor('gpt-coding');
      expect(turns.length).toBeGreaterThanOrEqual(2);
      expect(turns.length).toBeLessThanOrEqual(6);
      // Codex speaks the Responses API; the gateway carries it to this Chat Completions target.
      type Message = { role: string; tool_calls?: { function: { name: string; arguments: string } }[] };
      const bodies = turns.map((turn) => turn.body as { messages: Message[]; tools: { function: { name: string; parameters?: { required?: string[] } } }[] });
      const withOutput = bodies.find((body) => body.messages.at(-1)?.role === 'tool');
      expect(withOutput, 'a turn carrying the tool output').toBeDefined();
      const call = withOutput!.messages.flatMap((message) => message.tool_calls ?? [])[0]!;
      expect(call.function.name).toBe('view_image');
      const required = withOutput!.tools.find((tool) => tool.function.name === 'view_image')!.function.parameters?.required ?? [];
      expect(required.length).toBeGreaterThan(0);
      const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
      for (const field of required) expect(args).toHaveProperty(field);
    },
    RUN_TIMEOUT_MS + 10_000,
  );
});
