import { resolve } from 'node:path';
import { canaryPromptsPath, CanaryPromptsError, readCanaryPrompts } from '../canaries/canary-prompts.js';
import type { ReferenceIssue } from './check-references.js';
import { formatPath } from './config-issue.js';
import { isRecord } from './is-record.js';

/**
 * Every canary's prompts file must be readable and every line a prompt: checked when a config is
 * loaded or reloaded (and by check-config), so a typo is found then rather than at the next run.
 * Relative paths are taken from the config file's directory (the working directory when the
 * text has no file).
 */
export function checkCanaryPrompts(raw: unknown, configFile: string | undefined): ReferenceIssue[] {
  if (!isRecord(raw) || !isRecord(raw.canaries)) return [];
  const issues: ReferenceIssue[] = [];
  for (const [routeName, canary] of Object.entries(raw.canaries)) {
    if (!isRecord(canary) || typeof canary.prompts !== 'string' || canary.prompts === '') continue;
    try {
      readCanaryPrompts(configFile === undefined ? resolve(canary.prompts) : canaryPromptsPath(configFile, canary.prompts));
    } catch (error) {
      if (!(error instanceof CanaryPromptsError)) throw error;
      const pathSegments = ['canaries', routeName, 'prompts'];
      issues.push({ path: formatPath(pathSegments), pathSegments, message: error.message });
    }
  }
  return issues;
}
