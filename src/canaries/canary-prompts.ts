import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { OPENAI_CHAT } from '../dialects/openai-chat/openai-chat.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ChatRequest } from '../providers/spec.js';

/** One line of a canary's prompts file, parsed: the request as a caller's Chat Completions body would make it. */
export interface CanaryPrompt {
  /** 0-based, in file order. */
  index: number;
  request: ChatRequest;
  reference: string;
}

/** A prompts file that cannot be used: unreadable, empty, or a line that is not a prompt. */
export class CanaryPromptsError extends Error {
  /** 1-based line of the file at fault, when one is. */
  readonly line: number | undefined;

  constructor(message: string, line?: number) {
    super(message);
    this.name = 'CanaryPromptsError';
    this.line = line;
  }
}

/** `canaries.*.prompts` is written relative to the config file. */
export function canaryPromptsPath(configFile: string, prompts: string): string {
  return resolve(dirname(configFile), prompts);
}

/**
 * Reads a prompts file: JSON lines of `{"messages": [...], "reference": "..."}` (blank lines
 * skipped), the messages as the OpenAI Chat Completions API takes them and checked by the same
 * parser. Throws `CanaryPromptsError` naming the file and the line at fault.
 */
export function readCanaryPrompts(file: string): CanaryPrompt[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CanaryPromptsError(`cannot read prompts file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const prompts: CanaryPrompt[] = [];
  text.split('\n').forEach((lineText, lineIndex) => {
    if (lineText.trim() === '') return;
    const line = lineIndex + 1;
    const fail = (problem: string): never => {
      throw new CanaryPromptsError(`prompts file ${file} line ${line}: ${problem}`, line);
    };
    let entry: unknown;
    try {
      entry = JSON.parse(lineText);
    } catch (error) {
      fail(`not JSON (${(error as Error).message})`);
    }
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) fail('not a JSON object');
    const { messages, reference, ...rest } = entry as Record<string, unknown>;
    const unknown = Object.keys(rest);
    if (unknown.length > 0) fail(`unknown key ${JSON.stringify(unknown[0])} (a line has only "messages" and "reference")`);
    if (typeof reference !== 'string') fail('"reference" must be a string');
    if (!Array.isArray(messages) || messages.length === 0) fail('"messages" must be a non-empty array of chat messages');
    let request: ChatRequest;
    try {
      request = OPENAI_CHAT.parse({ model: 'canary', messages }, {}).request;
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      fail(error.message.replace(/^Invalid request: /, '').replace(/\.$/, ''));
    }
    prompts.push({ index: prompts.length, request: request!, reference: reference as string });
  });
  if (prompts.length === 0) throw new CanaryPromptsError(`prompts file ${file} has no prompts`);
  return prompts;
}
