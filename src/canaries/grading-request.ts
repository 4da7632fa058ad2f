import type { ChatMessage, ChatRequest } from '../providers/spec.js';

/** The grader's instructions, fixed so that grades stay comparable from run to run. */
export const GRADING_INSTRUCTIONS =
  'You grade answers. Compare the ANSWER with the REFERENCE answer to the QUESTION. ' +
  'Reply with one whole number from 0 (wrong or unrelated) to 10 (as good as the reference), and nothing else.';

/** The conversation as plain text, one `role: text` line per message (images and tool calls left out). */
function conversationText(messages: readonly ChatMessage[]): string {
  return messages
    .map((message) => {
      const text = typeof message.content === 'string' ? message.content : message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
      return `${message.role}: ${text}`;
    })
    .join('\n');
}

/** What a grader route is asked, for one prompt's answer: a 0–10 grade and nothing else. */
export function gradingRequest(question: readonly ChatMessage[], reference: string, answer: string): ChatRequest {
  return {
    messages: [
      { role: 'system', content: GRADING_INSTRUCTIONS },
      {
        role: 'user',
        content: [{ type: 'text', text: `QUESTION:\n${conversationText(question)}\n\nREFERENCE:\n${reference}\n\nANSWER:\n${answer}\n\nGRADE (0-10):` }],
      },
    ],
    stream: false,
    includeUsage: false,
  };
}
