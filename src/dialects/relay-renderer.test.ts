import { expect, it } from 'vitest';
import type { StreamRenderer } from './caller-dialect.js';
import { relayRenderer } from './relay-renderer.js';

/** A dialect whose answers are kept, as the Responses API's are; its own end is never the relay's. */
const KEPT: StreamRenderer = {
  write: () => 'dialect-frame',
  end: () => 'dialect-end',
  error: () => 'dialect-error',
  finalAnswer: () => ({ from: 'the dialect' }),
};
const DELTA = 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"hi"}\n\n';
const COMPLETED = 'event: response.completed\ndata: {"type":"response.completed","response":{"id":"resp_1","store":true,"x":1.0}}\n\n';

function relayed(): StreamRenderer {
  const renderer = relayRenderer(KEPT);
  expect(renderer.write({ type: 'text-delta', text: 'hi' })).toBe('');
  expect(renderer.write({ type: 'relay-frame', text: DELTA })).toBe(DELTA);
  expect(renderer.write({ type: 'finish', reason: 'stop' })).toBe('');
  // The frame that finishes the answer waits for `end()`, after the answer was kept.
  expect(renderer.write({ type: 'relay-frame', text: COMPLETED, last: true })).toBe('');
  return renderer;
}

it('sends the finishing frame as it came when keeping the answer changed nothing', () => {
  const renderer = relayed();
  expect(renderer.finalAnswer!()).toEqual({ id: 'resp_1', store: true, x: 1 });
  expect(renderer.end()).toBe(COMPLETED);
});

it('sends the finishing frame as changed when keeping the answer changed it', () => {
  const renderer = relayed();
  renderer.finalAnswer!().store = false;
  expect(renderer.end()).toBe('event: response.completed\ndata: {"type":"response.completed","response":{"id":"resp_1","store":false,"x":1}}\n\n');
});

it('holds nothing for a dialect whose answers are not kept', () => {
  const renderer = relayRenderer({ ...KEPT, finalAnswer: undefined });
  renderer.write({ type: 'finish', reason: 'stop' });
  expect(renderer.write({ type: 'relay-frame', text: COMPLETED, last: true })).toBe(COMPLETED);
  expect(renderer.finalAnswer).toBeUndefined();
  expect(renderer.end()).toBe('');
});
