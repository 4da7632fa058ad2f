import type { StreamRenderer } from './caller-dialect.js';
import { changedAtTopLevel, topLevelCopy } from './shared/kept-answer.js';
import { dataOf, withData } from '../streaming/sse-frame-text.js';

/**
 * The caller's renderer for a relayed stream: each upstream frame goes out as the provider sent
 * it (`relay-frame`; `relayedFrame` where the dialect edits one), the events read from it are not rendered again. What the gateway itself
 * says — an error after the commit point, the end of a stream whose upstream closed without its
 * last word — is the dialect's own renderer's.
 *
 * For a dialect whose answers are kept (`finalAnswer`: a Responses stream's `response.completed`
 * carries the whole response), the frame that finishes the answer waits for `end()`, so the
 * answer is kept before its last frame leaves, as a translated stream's is; `finalAnswer()` is the
 * `response` that frame carries, and a frame whose answer keeping changed goes out as changed.
 */
export function relayRenderer(dialect: StreamRenderer): StreamRenderer {
  let ended = false;
  let finishSeen = false;
  let held: { text: string; kept?: { event: object; answer: Record<string, unknown>; before: Record<string, unknown> } } | undefined;
  const renderer: StreamRenderer = {
    write(event) {
      if (event.type === 'relay-frame') {
        ended ||= event.last === true;
        const text = dialect.relayedFrame ? dialect.relayedFrame(event.text) : event.text;
        if (finishSeen && dialect.finalAnswer && held === undefined) {
          held = { text };
          return '';
        }
        return text;
      }
      if (event.type === 'finish') finishSeen = true;
      return event.type === 'provider-error' ? dialect.write(event) : '';
    },
    end() {
      if (held) return held.kept && changedAtTopLevel(held.kept.before, held.kept.answer) ? withData(held.text, JSON.stringify(held.kept.event)) : held.text;
      return ended ? '' : dialect.end();
    },
    error: (error) => dialect.error(error),
  };
  if (dialect.finalAnswer) {
    renderer.finalAnswer = () => {
      if (!held) return dialect.finalAnswer!();
      if (!held.kept) {
        const event = JSON.parse(dataOf(held.text)) as { response?: Record<string, unknown> };
        const answer = (event.response ??= {});
        held.kept = { event, answer, before: topLevelCopy(answer) };
      }
      return held.kept.answer;
    };
  }
  return renderer;
}
