import { describe, expect, it } from 'vitest';
import { ORIGIN_FIELD, expandConversation, previousResponseIdOf } from './expand-conversation.js';

const earlier = {
  input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'first' }] }],
  output: [
    { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'opaque' },
    { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'answer', annotations: [] }] },
  ],
  provider: 'openai',
};

describe('expandConversation', () => {
  it('puts the earlier input, then its output (reasoning marked with its provider), then the new input', () => {
    const expanded = expandConversation({ model: 'm', instructions: 'Now this.', input: 'second', previous_response_id: 'resp_1', store: true }, earlier);
    expect(expanded).toEqual({
      model: 'm',
      instructions: 'Now this.',
      store: true,
      previous_response_id: 'resp_1',
      input: [
        earlier.input[0],
        { ...earlier.output[0], [ORIGIN_FIELD]: 'openai' },
        earlier.output[1],
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'second' }] },
      ],
    });
  });

  it('leaves an input that is neither string nor items for the parser to refuse', () => {
    expect(expandConversation({ model: 'm', input: 42, previous_response_id: 'resp_1' }, earlier)).toEqual({ model: 'm', input: 42, previous_response_id: 'resp_1' });
  });
});

describe('previousResponseIdOf', () => {
  it('reads a string id only', () => {
    expect(previousResponseIdOf({ previous_response_id: 'resp_1' })).toBe('resp_1');
    expect(previousResponseIdOf({ previous_response_id: null })).toBeUndefined();
    expect(previousResponseIdOf({ previous_response_id: 7 })).toBeUndefined();
    expect(previousResponseIdOf([])).toBeUndefined();
  });
});
