import { readFileSync } from 'node:fs';
import { checkCanaryPrompts } from '../canaries/check-canary-prompts.js';
import { formatIssue, formatPath } from '../config/config-issue.js';
import { parseConfig } from '../config/parse-config.js';
import type { Config } from '../config/schema.js';
import { deploymentKey } from '../core/deployment-key.js';
import { modelChanges } from '../routing/model-change.js';

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
  for (const line of targetLines(parsed.config)) console.log(`  ${line}`);
  return 0;
}

/**
 * Every route's targets in config order, each with its `model_change` and whether the file wrote
 * it or it was inferred: an inferred one changes what a 429 waits for and the order targets are
 * tried in, so the operator sees it before serving.
 */
function targetLines(config: Config): string[] {
  return Object.entries(config.routes).flatMap(([name, route]) => {
    const changes = modelChanges(route.targets);
    return route.targets.map((target, index) => {
      const { modelChange, inferred } = changes[index]!;
      return `${formatPath(['routes', name, 'targets', index])}: ${deploymentKey(target.connection, target.model)}, model_change: ${modelChange} (${inferred ? 'inferred' : 'written'})`;
    });
  });
}
