/** What the state config tests share: a config around a `state` mapping, and the issues parsing it gives. Not a test file itself. */
import { formatIssue } from '../../src/config/config-issue.js';
import { parseConfig } from '../../src/config/parse-config.js';

/** A whole config file whose `state:` (on line 5) is `state`. */
export const withState = (state: string) => `connections:\n  m: { provider: mock }\nroutes:\n  r: { targets: [{ connection: m, model: x }] }\nstate: ${state}\n`;

/** The issues of that config, as check-config prints them. */
export const issuesOf = (state: string, env: NodeJS.ProcessEnv = {}) => parseConfig(withState(state), env).issues.map(formatIssue);
