import { expect, it } from 'vitest';
import { GRADING_INSTRUCTIONS, gradingRequest } from './grading-request.js';

it('a grader is asked the fixed instructions, then the question (every message as role: text), the reference and the answer', () => {
  const request = gradingRequest(
    [
      { role: 'system', content: 'Answer with the country only.' },
      { role: 'user', content: [{ type: 'text', text: 'Where is Lyon?' }, { type: 'image', url: 'https://example.test/map.png' }] },
    ],
    'France',
    'France.',
  );
  expect(request).toEqual({
    messages: [
      { role: 'system', content: GRADING_INSTRUCTIONS },
      {
        role: 'user',
        content: [{ type: 'text', text: 'QUESTION:\nsystem: Answer with the country only.\nuser: Where is Lyon?\n\nREFERENCE:\nFrance\n\nANSWER:\nFrance.\n\nGRADE (0-10):' }],
      },
    ],
    stream: false,
    includeUsage: false,
  });
});
