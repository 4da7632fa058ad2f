/** One problem found in a config file, located by its YAML path (and line, when known). */
export interface ConfigIssue {
  path: string;
  message: string;
  line?: number;
}

/** `routes.support.targets[1].connection` from `['routes', 'support', 'targets', 1, 'connection']`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text || '(root)';
}

export function formatIssue(issue: ConfigIssue): string {
  const where = issue.line === undefined ? '' : ` (line ${issue.line})`;
  return `${issue.path}: ${issue.message}${where}`;
}

export class ConfigError extends Error {
  readonly issues: readonly ConfigIssue[];

  constructor(file: string, issues: readonly ConfigIssue[]) {
    super(`invalid config ${file}:\n${issues.map((issue) => `  ${formatIssue(issue)}`).join('\n')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}
