import { readFileSync } from 'node:fs';
import { checkCanaryPrompts } from '../canaries/check-canary-prompts.js';
import { formatIssue } from '../config/config-issue.js';
import { parseConfig } from '../config/parse-config.js';

/** Prints every problem in the file (or a one-line summary); returns the exit code. */
export function runCheckConfig(file: string): number {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    console.error(`${file}: cannot read: ${(error as Error).message}`);
    return 1;
  }
  const parsed = parseConfig(text, process.env, { file, fileChecks: [checkCanaryPrompts] });
  for (const note of parsed.notes) console.log(`note: ${note}`);
  if (!parsed.config) {
    console.error(`${file}: ${parsed.issues.length} error${parsed.issues.length === 1 ? '' : 's'}`);
    for (const issue of parsed.issues) console.error(`  ${formatIssue(issue)}`);
    return 1;
  }
  const connections = Object.keys(parsed.config.connections).length;
  const routes = Object.keys(parsed.config.routes).length;
  console.log(`${file}: ok (${connections} connection${connections === 1 ? '' : 's'}, ${routes} route${routes === 1 ? '' : 's'})`);
  return 0;
}
