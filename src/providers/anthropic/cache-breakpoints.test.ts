import { describe, expect, it } from 'vitest';
import { keepLastCacheBreakpoints } from './cache-breakpoints.js';

const marker = { type: 'ephemeral' };

describe('keepLastCacheBreakpoints', () => {
  it('leaves a body with 4 markers as it is', () => {
    const body = {
      tools: [{ name: 't', cache_control: marker }],
      system: [{ type: 'text', text: 's', cache_control: marker }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'a', cache_control: marker }, { type: 'text', text: 'b', cache_control: marker }] }],
    };
    const before = structuredClone(body);
    keepLastCacheBreakpoints(body);
    expect(body).toEqual(before);
  });

  it("counts a tool result's own blocks before the result, and a top-level marker last", () => {
    const body = {
      tools: [{ name: 't', cache_control: marker }],
      messages: [
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'x', content: [{ type: 'text', text: 'inner', cache_control: marker }], cache_control: marker }],
        },
        { role: 'user', content: [{ type: 'text', text: 'last', cache_control: marker }] },
      ],
      cache_control: marker,
    };
    keepLastCacheBreakpoints(body);
    // Five markers: the tool's, the first in reading order, is the one left out.
    expect(body.tools[0]).not.toHaveProperty('cache_control');
    expect(body.messages[0]!.content[0]).toMatchObject({ cache_control: marker, content: [{ cache_control: marker }] });
    expect(body.cache_control).toEqual(marker);
  });

  it('removes markers from copies, never from the objects the body shares with the caller', () => {
    const shared = { role: 'system', content: [{ type: 'text', text: 'entry', cache_control: marker }] };
    const turns = [1, 2, 3, 4].map((n) => ({ role: 'user', content: [{ type: 'text', text: `turn ${n}`, cache_control: marker }] }));
    const body = { messages: [shared, ...turns] };
    keepLastCacheBreakpoints(body);
    expect(body.messages[0]).toEqual({ role: 'system', content: [{ type: 'text', text: 'entry' }] });
    expect(shared.content[0]).toHaveProperty('cache_control');
  });
});
