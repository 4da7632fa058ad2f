import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { PROCESS_START_TIMEOUT_MS, startCli, type CliProcess } from '../../support/cli-process.js';
import { pythonSdksInterpreter, runPythonCases, type PythonCasesRun } from '../../support/python-sdks.js';

// The quick start as a Python user meets it: `npm start` (examples/demo.yaml), then the official
// `openai` and `anthropic` packages from PyPI with only their base URL set, every way they are
// called. The cases are test/python-sdks/*_cases.py: one Python process per SDK.
const DEMO_CONFIG = join(process.cwd(), 'examples', 'demo.yaml');
const python = pythonSdksInterpreter();
const ANSWER = mockAnswerText(8);
const WEATHER_CALL = { name: 'get_weather', arguments: { city: 'w0' } };

let directory: string;
let gateway: CliProcess;
let openai: PythonCasesRun;
let anthropic: PythonCasesRun;

describe.skipIf(python === undefined)('the Python SDKs against the quick start', () => {
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'switchyard-python-sdks-'));
    gateway = startCli(['serve', '--config', DEMO_CONFIG, '--port', '0'], { cwd: directory, env: {} });
    const [, url] = (await gateway.waitFor(/Switchyard listening on (http:\/\/127\.0\.0\.1:\d+)/)) as [string, string];
    [openai, anthropic] = await Promise.all([runPythonCases(python!, 'openai_cases.py', url), runPythonCases(python!, 'anthropic_cases.py', url)]);
  }, 2 * PROCESS_START_TIMEOUT_MS);
  afterAll(async () => {
    await gateway?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  describe('openai, route demo (an OpenAI-dialect upstream)', () => {
    it.each(['chat', 'chat streamed', 'chat async', 'chat streamed async'])('chat.completions.create, %s: the text, finish_reason stop and the final usage', (name) => {
      expect(openai.results[name]).toEqual({ text: ANSWER, finish_reason: 'stop', tool_calls: [], usage: { prompt_tokens: expect.any(Number), completion_tokens: 8 } });
    });

    it.each(['chat with tools', 'chat with tools streamed async'])('chat.completions.create, %s: the forced tool is called with arguments that fit its schema', (name) => {
      expect(openai.results[name]).toMatchObject({ finish_reason: 'tool_calls', tool_calls: [WEATHER_CALL], usage: { completion_tokens: 3 } });
    });

    it('responses.create: the output text, completed, with its usage', () => {
      expect(openai.results['responses.create']).toEqual({ text: ANSWER, status: 'completed', usage: { input_tokens: expect.any(Number), output_tokens: 8 }, event_types: null });
    });

    it.each(['responses.stream()', 'responses.stream() async'])('%s: every event from response.created to response.completed, then the final response', (name) => {
      const result = openai.results[name] as { event_types: string[] };
      expect(result).toMatchObject({ text: ANSWER, status: 'completed', usage: { output_tokens: 8 } });
      expect(result.event_types[0]).toBe('response.created');
      expect(result.event_types.at(-1)).toBe('response.completed');
      expect(result.event_types.filter((type) => type === 'response.output_text.delta')).toHaveLength(8);
    });

    it('opens no connection but to the gateway', () => {
      expect(openai.outsideConnections).toEqual([]);
    });
  });

  describe('anthropic, route demo-claude (an Anthropic-dialect upstream)', () => {
    const endTurn = { text: ANSWER, tool_uses: [], stop_reason: 'end_turn', usage: { input_tokens: expect.any(Number), output_tokens: 8 } };

    it.each(['messages.create', 'messages.create async'])('%s: the text, end_turn and the usage', (name) => {
      expect(anthropic.results[name]).toEqual({ ...endTurn, event_types: null });
    });

    // The Python SDK sends `x-stainless-timeout: NOT_GIVEN` on these: a hint, never a 400.
    it.each(['messages.create streamed', 'messages.create streamed async', 'messages.stream()'])(
      '%s: every event from message_start to message_stop, the text, and the final usage',
      (name) => {
        const result = anthropic.results[name] as { event_types: string[] };
        expect(result).toMatchObject(endTurn);
        expect(result.event_types[0]).toBe('message_start');
        expect(result.event_types.at(-1)).toBe('message_stop');
        expect(result.event_types.filter((type) => type === 'content_block_delta')).toHaveLength(8);
      },
    );

    it('messages.stream() async: the text stream and the final message agree', () => {
      expect(anthropic.results['messages.stream() async']).toEqual({ ...endTurn, event_types: null, text_stream: ANSWER });
    });

    it.each(['messages.create with tools', 'messages.stream() with tools async'])('%s: the forced tool is called with an input that fits its schema', (name) => {
      expect(anthropic.results[name]).toMatchObject({ stop_reason: 'tool_use', tool_uses: [{ name: WEATHER_CALL.name, input: WEATHER_CALL.arguments }], usage: { output_tokens: 3 } });
    });

    it('opens no connection but to the gateway', () => {
      expect(anthropic.outsideConnections).toEqual([]);
    });
  });
});
