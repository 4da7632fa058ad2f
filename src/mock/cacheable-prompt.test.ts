import { describe, expect, it } from 'vitest';
import { countInputTokens } from './answer.js';
import { cacheablePrompt } from './cacheable-prompt.js';

const marker = { type: 'ephemeral' };

describe('an Anthropic prompt', () => {
  const body = {
    tools: [{ name: 'read', input_schema: { type: 'object' }, cache_control: marker }],
    system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'hello' }, { type: 'text', text: 'there', cache_control: marker }] },
      { role: 'assistant', content: 'w0 w1' },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'sunny', cache_control: marker }] }] },
    ],
  };

  it('is its tools, system blocks and content blocks in that order, each marked where its cache_control is', () => {
    const { blocks, caching } = cacheablePrompt('anthropic', body);
    expect(caching).toBe('explicit');
    expect(blocks.map((block) => [block.characters, block.breakpoint])).toEqual([
      [0, '5m'],
      ['You are terse.'.length, '1h'],
      [5, undefined],
      [5, '5m'],
      [5, undefined],
      // A marker inside a tool result marks the whole result.
      [5, '5m'],
    ]);
  });

  it('has as many characters as the input tokens count', () => {
    const characters = cacheablePrompt('anthropic', body).blocks.reduce((sum, block) => sum + block.characters, 0);
    expect(Math.ceil(characters / 4)).toBe(countInputTokens(body));
  });

  it('compares blocks without their markers, and a string content as the text block it stands for', () => {
    const marked = cacheablePrompt('anthropic', { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: marker }] }] });
    const plain = cacheablePrompt('anthropic', { messages: [{ role: 'user', content: 'hi' }] });
    expect(marked.blocks.map((block) => block.key)).toEqual(plain.blocks.map((block) => block.key));
    const asAssistant = cacheablePrompt('anthropic', { messages: [{ role: 'assistant', content: 'hi' }] });
    expect(asAssistant.blocks[0]!.key).not.toBe(plain.blocks[0]!.key);
  });

  it('takes a top-level cache_control as a marker at its end', () => {
    const { blocks } = cacheablePrompt('anthropic', { cache_control: marker, system: 'terse', messages: [{ role: 'user', content: 'hi' }] });
    expect(blocks.map((block) => block.breakpoint)).toEqual([undefined, '5m']);
  });
});

it('a Bedrock prompt is marked by its cachePoint entries, each on the block before it', () => {
  const body = {
    toolConfig: { tools: [{ toolSpec: { name: 'read' } }, { cachePoint: { type: 'default' } }] },
    system: [{ text: 'You are terse.' }, { cachePoint: { type: 'default', ttl: '1h' } }],
    messages: [{ role: 'user', content: [{ text: 'hello' }, { cachePoint: { type: 'default' } }] }],
  };
  const { blocks, caching } = cacheablePrompt('bedrock', body);
  expect(caching).toBe('explicit');
  expect(blocks.map((block) => [block.characters, block.breakpoint])).toEqual([
    [0, '5m'],
    ['You are terse.'.length, '1h'],
    [5, '5m'],
  ]);
});

describe.each([
  ['openai', { tools: [{ type: 'function', function: { name: 'f' } }], messages: [{ role: 'system', content: 'terse' }, { role: 'user', content: 'hello' }] }, [0, 5, 5]],
  ['openai-responses', { instructions: 'terse', input: [{ role: 'user', content: 'hello' }, { type: 'function_call_output', output: 'x' }] }, [5, 5, 0]],
  ['gemini', { systemInstruction: { parts: [{ text: 'terse' }] }, contents: [{ role: 'user', parts: [{ text: 'hello' }] }] }, [5, 5]],
] as const)('a %s prompt', (dialect, body, characters) => {
  it('is cached automatically, block by block: tools, instructions, then each message or item', () => {
    const prompt = cacheablePrompt(dialect, body);
    expect(prompt.caching).toBe('automatic');
    expect(prompt.blocks.map((block) => block.characters)).toEqual(characters);
    expect(prompt.blocks.every((block) => block.breakpoint === undefined)).toBe(true);
  });
});
