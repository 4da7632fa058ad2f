import { ConfigError, formatIssue } from '../config/config-issue.js';
import { ConfigSource } from '../config/config-source.js';
import { checkCanaryPrompts } from '../canaries/check-canary-prompts.js';

/** The config file, loaded; undefined after printing every error in it with its YAML path (the caller exits 1). */
export function loadConfigFile(file: string): ConfigSource | undefined {
  try {
    return ConfigSource.load(file, { fileChecks: [checkCanaryPrompts] });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`${file}: ${error.issues.length} error(s)`);
    for (const issue of error.issues) console.error(`  ${formatIssue(issue)}`);
    return undefined;
  }
}
