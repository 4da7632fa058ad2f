/**
 * Thinking blocks as the mock signs and checks them. A Claude home signs the thinking it answers
 * with, and refuses a request whose history carries thinking it did not sign: Anthropic, Bedrock
 * and Vertex each verify only their own signatures. The mock's signature names its home
 * (`mock-signed-by-bedrock.3`), so a block carried from one home to another is refused as the real
 * ones refuse it; signatures the mock did not make are taken as valid.
 */
import type { UpstreamDialect } from '../providers/spec.js';
import { isRecord } from './answer.js';
import type { Route } from './routes.js';

/** The thinking an answer starts with. */
export interface MockThinking {
  text: string;
  signature: string;
}

const SIGNATURE = /^mock-signed-by-([a-z-]+)\.\d+$/;

/** Where a route answers as: Anthropic, Bedrock, Vertex… (Vertex's routes speak Anthropic's dialect). */
export function homeOf(route: Route): string {
  return route.home ?? route.dialect;
}

/** A Claude model, whatever the home calls it (`claude-…`, `us.anthropic.claude-…`, `claude-…@2025…`). */
function isClaude(name: string): boolean {
  return /^(?:[a-z]+\.)*claude-/.test(name);
}

/** The thinking a Claude answer starts with when the request turned thinking on (Anthropic `thinking`, Bedrock's `additionalModelRequestFields.thinking`). */
export function answerThinking(route: Route, fields: Record<string, unknown>, name: string, n: number): MockThinking | undefined {
  if (!isClaude(name)) return undefined;
  const thinking = route.dialect === 'bedrock' ? (isRecord(fields.additionalModelRequestFields) ? fields.additionalModelRequestFields.thinking : undefined) : fields.thinking;
  if (!isRecord(thinking) || thinking.type !== 'enabled') return undefined;
  return { text: 'Thinking it over.', signature: `mock-signed-by-${homeOf(route)}.${n}` };
}

/**
 * Why a Claude home refuses the request's thinking, in Anthropic's words, or undefined: a block
 * another home signed (`messages.1.content.0: Invalid \`signature\` in \`thinking\` block`,
 * anthropics/claude-code#10627; Bedrock's ValidationException says the same), or, with thinking
 * on, a tool loop's last assistant turn that does not start with its thinking.
 */
export function thinkingRefusal(route: Route, fields: Record<string, unknown>, name: string): string | undefined {
  if (!isClaude(name) || !Array.isArray(fields.messages)) return undefined;
  const messages: unknown[] = fields.messages;
  for (const [index, message] of messages.entries()) {
    const blocks = isRecord(message) && message.role === 'assistant' && Array.isArray(message.content) ? (message.content as unknown[]) : [];
    for (const [position, block] of blocks.entries()) {
      const signer = SIGNATURE.exec(signatureOf(route.dialect, block) ?? '')?.[1];
      if (signer !== undefined && signer !== homeOf(route)) return `messages.${index}.content.${position}: Invalid \`signature\` in \`thinking\` block`;
    }
  }
  return route.dialect === 'anthropic' && isRecord(fields.thinking) && fields.thinking.type === 'enabled' ? unthoughtToolTurn(messages) : undefined;
}

function signatureOf(dialect: UpstreamDialect, block: unknown): string | undefined {
  if (!isRecord(block)) return undefined;
  if (dialect === 'bedrock') {
    const reasoning = isRecord(block.reasoningContent) ? block.reasoningContent.reasoningText : undefined;
    return isRecord(reasoning) && typeof reasoning.signature === 'string' ? reasoning.signature : undefined;
  }
  return block.type === 'thinking' && typeof block.signature === 'string' ? block.signature : undefined;
}

/** A conversation ending in tool results whose assistant turn does not open with thinking: refused while thinking is on. */
function unthoughtToolTurn(messages: unknown[]): string | undefined {
  const last = messages.at(-1);
  const answersTools = isRecord(last) && Array.isArray(last.content) && last.content.some((block) => isRecord(block) && block.type === 'tool_result');
  const index = messages.length - 2;
  const turn = messages[index];
  if (!answersTools || !isRecord(turn) || turn.role !== 'assistant' || !Array.isArray(turn.content)) return undefined;
  const first: unknown = turn.content[0];
  const type = isRecord(first) && typeof first.type === 'string' ? first.type : 'text';
  if (type === 'thinking' || type === 'redacted_thinking') return undefined;
  return (
    `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${type}\`. When \`thinking\` is enabled, ` +
    'a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). ' +
    'We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. ' +
    'Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking'
  );
}
