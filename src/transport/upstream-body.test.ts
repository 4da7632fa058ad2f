import { describe, expect, it } from 'vitest';
import { UpstreamBody, UpstreamBodyTooLargeError } from './upstream-body.js';

function bodyOf(...parts: string[]): UpstreamBody {
  const body = new UpstreamBody();
  for (const part of parts) body.push(Buffer.from(part));
  body.end();
  return body;
}

describe('UpstreamBody', () => {
  it('joins a whole body, a character split across chunks included', async () => {
    const bytes = Buffer.from('{"text":"café"}');
    // Byte 13 falls inside the two bytes of "é".
    const split = new UpstreamBody();
    split.push(bytes.subarray(0, 13));
    split.push(bytes.subarray(13));
    split.end();
    expect(await split.json()).toEqual({ text: 'café' });
  });

  it('refuses a whole body past its limit instead of buffering it', async () => {
    await expect(bodyOf('x'.repeat(10), 'y'.repeat(10)).text(15)).rejects.toBeInstanceOf(UpstreamBodyTooLargeError);
    expect(await bodyOf('x'.repeat(10), 'y'.repeat(5)).text(15)).toBe('x'.repeat(10) + 'y'.repeat(5));
  });

  it('surfaces an upstream failure to the reader', async () => {
    const body = new UpstreamBody();
    body.push(Buffer.from('partial'));
    body.fail(new Error('socket reset'));
    await expect(body.text()).rejects.toThrow('socket reset');
  });
});
