import { describe, expect, it } from 'vitest';
import { fitCachePoints } from './cache-points.js';

const point = (ttl?: string) => ({ cachePoint: { type: 'default', ttl } });

function body() {
  return {
    toolConfig: { tools: [{ toolSpec: { name: 't' } }, point('1h')] },
    system: [{ text: 's' }, point('1h')],
    messages: [
      { role: 'user', content: [{ text: 'a' }, point()] },
      { role: 'user', content: [{ text: 'b' }, point(), { text: 'c' }, point()] },
    ],
  };
}

describe('fitCachePoints', () => {
  it('keeps the last 4 points in reading order (tools, system, messages) with their ttl, for Claude 4.5', () => {
    const sent = body();
    fitCachePoints(sent, 'us.anthropic.claude-opus-4-5-20251101-v1:0');
    expect(sent.toolConfig.tools).toEqual([{ toolSpec: { name: 't' } }]);
    expect(sent.system).toEqual([{ text: 's' }, point('1h')]);
    expect(sent.messages[1]!.content).toEqual([{ text: 'b' }, point(), { text: 'c' }, point()]);
  });

  it('sends models before Claude 4.5 no ttl', () => {
    for (const model of ['anthropic.claude-3-7-sonnet-20250219-v1:0', 'anthropic.claude-sonnet-4-20250514-v1:0', 'anthropic.claude-opus-4-1-20250805-v1:0']) {
      const sent = body();
      fitCachePoints(sent, model);
      expect(sent.system[1]).toEqual({ cachePoint: { type: 'default' } });
    }
  });
});
