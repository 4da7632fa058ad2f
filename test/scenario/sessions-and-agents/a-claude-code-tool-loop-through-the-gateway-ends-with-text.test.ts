import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { locateClaudeCode, runClaudeCode } from '../../support/claude-code.js';
import { describeRun } from '../../support/offline-cli.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

// Claude Code's default model, whatever this version calls it, reaches a target whose every turn
// calls its Read tool (the mock's `tool_call` directive), with arguments generated from the
// schema Claude Code declared. The turn after the tool result is answered with text, so the loop
// ends: one tool round, then the answer.
const RUN_TIMEOUT_MS = 60_000;
const install = locateClaudeCode();
const inCi = process.env.CI === 'true';

let gateway: TestGateway;

describe.skipIf('missing' in install && !inCi)('a Claude Code tool loop against the mock', () => {
  beforeAll(async () => {
    gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  coding:
    aliases: ["claude-*"]
    targets: [{ connection: mock-anthropic, model: "claude-coding?tool_call=Read" }]
`);
  });
  afterAll(() => gateway?.close());

  it(
    'calls the tool with schema-valid arguments, sends its result back, and ends with the text answer',
    async () => {
      if ('missing' in install) throw new Error(install.missing);
      const run = await runClaudeCode(install.binary, { baseUrl: gateway.url, prompt: 'Read the notes file and summarise it', timeoutMs: RUN_TIMEOUT_MS });
      expect(run.exitCode, describeRun('claude -p', run, RUN_TIMEOUT_MS)).toBe(0);
      expect(run.stdout).toContain(mockAnswerText(8));
      expect(run.outsideConnections).toEqual([]);

      const turns = gateway.mock.attemptsFor('claude-coding');
      // The first turn, the turn with the tool result; a side request of Claude Code's may add one or two.
      expect(turns.length).toBeGreaterThanOrEqual(2);
      expect(turns.length).toBeLessThanOrEqual(6);
      const bodies = turns.map((turn) => turn.body as { messages: { role: string; content: unknown }[]; tools?: { name: string; input_schema: { required?: string[] } }[] });
      const withResult = bodies.find((body) => JSON.stringify(body.messages.at(-1)).includes('"tool_result"'));
      expect(withResult, 'a turn carrying the Read result').toBeDefined();
      // The call Claude Code ran carried every field Read's schema requires.
      const call = withResult!.messages.flatMap((message) => (Array.isArray(message.content) ? (message.content as { type: string; name?: string; input?: Record<string, unknown> }[]) : [])).find((block) => block.type === 'tool_use');
      expect(call).toMatchObject({ name: 'Read' });
      const required = withResult!.tools!.find((tool) => tool.name === 'Read')!.input_schema.required ?? [];
      expect(required.length).toBeGreaterThan(0);
      for (const field of required) expect(call!.input).toHaveProperty(field);
    },
    RUN_TIMEOUT_MS + 10_000,
  );
});
