import type { ReferenceIssue } from './check-references.js';
import { isRecord } from './is-record.js';

/**
 * State kinds the schema knows but this build cannot run yet. Refusing them (at check-config and
 * at start) is the point: a gateway told to share state through Redis must not quietly keep it
 * in memory.
 */
const NOT_YET_AVAILABLE: readonly { block: 'state'; kind: string; instead: string }[] = [
  { block: 'state', kind: 'redis', instead: 'state: { kind: memory }' },
];

export function checkBackends(raw: unknown): ReferenceIssue[] {
  if (!isRecord(raw)) return [];
  const issues: ReferenceIssue[] = [];
  for (const { block, kind, instead } of NOT_YET_AVAILABLE) {
    const section = raw[block];
    if (!isRecord(section) || section.kind !== kind) continue;
    issues.push({
      path: `${block}.kind`,
      pathSegments: [block, 'kind'],
      message: `${kind} is not available in this build yet; use ${instead} for now`,
    });
  }
  return issues;
}
