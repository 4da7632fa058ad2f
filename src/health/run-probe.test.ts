import { describe, expect, it } from 'vitest';
import { configSchema, type Config } from '../config/schema.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import type { RecordDraft } from '../records/record-draft.js';
import type { DeploymentHealth } from './health-registry.js';
import { PROBE_TIMEOUTS, runProbe, type ProbeDeps, type ProbeOutcome } from './run-probe.js';

const config: Config = configSchema.parse({ connections: { c: { provider: 'mock' } }, routes: { r: { targets: [{ connection: 'c', model: 'm' }] } } });
const deployment = { key: 'c/m', connection: 'c', model: 'm' } as DeploymentHealth;

function record(kind: AttemptRecord['kind'], httpStatus?: number): AttemptRecord {
  return { n: 1, connection: 'c', provider: 'mock', model: 'm', kind, startedMs: 0, latencyMs: 1, committed: false, malformedEvents: 0, ...(httpStatus ? { httpStatus } : {}) };
}

function probeWith(outcome: ProbeOutcome, current: Config = config) {
  const kept: RecordDraft[] = [];
  const asked: Parameters<ProbeDeps['attempt']>[0][] = [];
  const deps: ProbeDeps = {
    config: () => current,
    newRequestId: () => 'req_probe',
    attempt: async (input) => {
      asked.push(input);
      return outcome;
    },
    keep: (draft) => kept.push(draft),
  };
  return { run: () => runProbe(deployment, deps), kept, asked };
}

describe('runProbe', () => {
  it('keeps a served probe as a record of its own, within the probe deadline', async () => {
    const { run, kept, asked } = probeWith({ ok: true, record: record('ok') });
    expect(await run()).toBe('ok');
    expect(asked[0]!.target).toMatchObject({ connectionName: 'c', routedModel: 'm' });
    expect(asked[0]!.deadlineAtMs - asked[0]!.requestStartedAtMs).toBe(PROBE_TIMEOUTS.total_ms);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ id: 'req_probe', origin: 'probe', modelRequested: 'c/m', status: 'ok' });
    expect(kept[0]!.served?.connectionName).toBe('c');
  });

  it('records a failed probe with the status and kind the attempt saw', async () => {
    const { run, kept } = probeWith({ ok: false, record: record('credential', 401), error: { kind: 'credential' } });
    expect(await run()).toBe('credential');
    expect(kept[0]).toMatchObject({ status: 'failed', httpStatus: 401, errorCode: 'credential', served: null });
  });

  it('leaves a connection a reload removed faulted, without an attempt or a record', async () => {
    const { run, kept, asked } = probeWith({ ok: true, record: record('ok') }, configSchema.parse({ connections: {}, routes: {} }));
    expect(await run()).toBe('not_found');
    expect(asked).toHaveLength(0);
    expect(kept).toHaveLength(0);
  });
});
