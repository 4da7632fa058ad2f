import { describe, expect, it } from 'vitest';
import type { SseRenderer } from '../dialects/caller-dialect.js';
import { RecordingSseRenderer } from './recording-sse-renderer.js';

const renderer: SseRenderer = {
  write: (event) => (event.type === 'text-delta' ? `data: ${JSON.stringify({ text: event.text })}\n\n` : ''),
  end: () => 'data: [DONE]\n\n',
};

describe('RecordingSseRenderer', () => {
  it('passes every rendered chunk through and keeps a copy', () => {
    const recording = new RecordingSseRenderer(renderer, 1_000);
    const sent = [
      recording.write({ type: 'response-start' }),
      recording.write({ type: 'text-delta', text: 'Hel' }),
      recording.write({ type: 'text-delta', text: 'lo' }),
      recording.end(),
    ].join('');
    expect(sent).toBe('data: {"text":"Hel"}\n\ndata: {"text":"lo"}\n\ndata: [DONE]\n\n');
    expect(recording.text()).toBe(sent);
  });

  it('gives up the copy, not the stream, past its size', () => {
    const recording = new RecordingSseRenderer(renderer, 30);
    expect(recording.write({ type: 'text-delta', text: 'a'.repeat(20) })).toContain('a'.repeat(20));
    expect(recording.write({ type: 'text-delta', text: 'b' })).toBe('data: {"text":"b"}\n\n');
    expect(recording.text()).toBeUndefined();
  });
});
