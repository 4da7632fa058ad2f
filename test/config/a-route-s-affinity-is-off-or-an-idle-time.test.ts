import { expect, it } from 'vitest';
import { formatIssue } from '../../src/config/config-issue.js';
import { parseConfig } from '../../src/config/parse-config.js';

const withAffinity = (affinity: string | undefined) =>
  `connections:\n  m: { provider: mock }\nroutes:\n  r: { ${affinity === undefined ? '' : `affinity: ${affinity}, `}targets: [{ connection: m, model: x }] }\n`;

it('routes.*.affinity is on by default (idle_s 300), off, or { idle_s } in seconds', () => {
  expect(parseConfig(withAffinity(undefined), {}).config?.routes.r!.affinity).toEqual({ idle_s: 300 });
  expect(parseConfig(withAffinity('off'), {}).config?.routes.r!.affinity).toBe('off');
  expect(parseConfig(withAffinity('{ idle_s: 0.5 }'), {}).config?.routes.r!.affinity).toEqual({ idle_s: 0.5 });
});

it('anything else is refused with what it expects, at its path and line', () => {
  const issuesOf = (affinity: string) => parseConfig(withAffinity(affinity), {}).issues.map(formatIssue);
  expect(issuesOf('false')).toEqual(['routes.r.affinity: expected off, or { idle_s: N } (got false) (line 4)']);
  expect(issuesOf('{ idle_s: 0 }')).toEqual(['routes.r.affinity.idle_s: expected a number of seconds above 0 (got 0) (line 4)']);
  expect(issuesOf('{ idle: 60 }')).toEqual(['routes.r.affinity.idle: unknown key (did you mean "idle_s"?) (line 4)']);
});
