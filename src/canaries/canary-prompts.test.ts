import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canaryPromptsPath, CanaryPromptsError, readCanaryPrompts } from './canary-prompts.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-canary-prompts-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function promptsFile(text: string): string {
  const file = join(directory, `prompts-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, text);
  return file;
}

describe('a canary prompts file', () => {
  it('is read line by line into canonical requests, blank lines skipped', () => {
    const file = promptsFile('{"messages": [{"role": "user", "content": "Capital of France?"}], "reference": "Paris"}\n\n{"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "2+2?"}], "reference": "4"}\n');
    const prompts = readCanaryPrompts(file);
    expect(prompts.map((prompt) => [prompt.index, prompt.reference, prompt.request.messages.length, prompt.request.stream])).toEqual([
      [0, 'Paris', 1, false],
      [1, '4', 2, false],
    ]);
    expect(prompts[0]!.request.messages[0]).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'Capital of France?' }] });
  });

  it('names the file and the line at fault', () => {
    const good = '{"messages": [{"role": "user", "content": "hi"}], "reference": "hello"}';
    expect(() => readCanaryPrompts(promptsFile(`${good}\n{"messages": [`))).toThrow(/line 2: not JSON/);
    expect(() => readCanaryPrompts(promptsFile(`${good}\n${good}\n{"messages": [{"role": "user", "content": "hi"}]}`))).toThrow(/line 3: "reference" must be a string/);
    expect(() => readCanaryPrompts(promptsFile('{"messages": [{"role": "wizard", "content": "hi"}], "reference": "x"}'))).toThrow(/line 1: messages\[0\]\.role/);
    expect(() => readCanaryPrompts(promptsFile('{"messages": [], "reference": "x"}'))).toThrow(/line 1: "messages" must be a non-empty array/);
    expect(() => readCanaryPrompts(promptsFile('{"messages": [{"role": "user", "content": "hi"}], "reference": "x", "refrence": "y"}'))).toThrow(/line 1: unknown key "refrence"/);
    expect(() => readCanaryPrompts(promptsFile('[1]'))).toThrow(/line 1: not a JSON object/);
    expect(() => readCanaryPrompts(promptsFile('\n\n'))).toThrow(/has no prompts/);
    expect(() => readCanaryPrompts(join(directory, 'missing.jsonl'))).toThrow(/cannot read prompts file .*missing\.jsonl: ENOENT/);
    const thrown = (() => {
      try {
        readCanaryPrompts(promptsFile(`${good}\n\n{`));
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(CanaryPromptsError);
    expect((thrown as CanaryPromptsError).line).toBe(3);
  });

  it('is found relative to the config file', () => {
    expect(canaryPromptsPath('/etc/switchyard/config.yaml', './canaries/a.jsonl')).toBe('/etc/switchyard/canaries/a.jsonl');
    expect(canaryPromptsPath('/etc/switchyard/config.yaml', '/srv/a.jsonl')).toBe('/srv/a.jsonl');
  });
});
