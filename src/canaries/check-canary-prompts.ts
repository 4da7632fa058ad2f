import { resolve } from 'node:path';
import { isRecord } from '../config/is-record.js';
import type { FileCheckIssue } from '../config/parse-config.js';
import { canaryPromptsPath, CanaryPromptsError, readCanaryPrompts } from './canary-prompts.js';

/**
 * Every canary's prompts file must be readable and every line a prompt (its messages checked by
 * the Chat Completions parser): checked when a config is loaded or reloaded and by check-config,
 * so a typo is found then rather than at the next run. Relative paths are taken from the config
 * file's directory (the working directory when the text has no file).
 */
export function checkCanaryPrompts(raw: unknown, configFile: string | undefined): FileCheckIssue[] {
  if (!isRecord(raw) || !isRecord(raw.canaries)) return [];
  const issues: FileCheckIssue[] = [];
  for (const [routeName, canary] of Object.entries(raw.canaries)) {
    if (!isRecord(canary) || typeof canary.prompts !== 'string' || canary.prompts === '') continue;
    try {
      readCanaryPrompts(configFile === undefined ? resolve(canary.prompts) : canaryPromptsPath(configFile, canary.prompts));
    } catch (error) {
      if (!(error instanceof CanaryPromptsError)) throw error;
      issues.push({ pathSegments: ['canaries', routeName, 'prompts'], message: error.message });
    }
  }
  return issues;
}
