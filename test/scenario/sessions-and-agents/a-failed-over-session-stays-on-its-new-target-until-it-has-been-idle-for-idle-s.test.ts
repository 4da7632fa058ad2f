import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/core/request-record.js';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';

// The primaries fail streamed requests only (an in-band error before any content), so whether a
// turn streams says whether the primary is failing: a session fails over, then the primary is well.
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  primary: { provider: mock, dialect: openai }
  standby: { provider: mock, dialect: openai }
routes:
  stays:
    retries: 0
    targets:
      - { connection: primary, model: "gpt-stays?inband_error=server_error" }
      - { connection: standby, model: gpt-stays, model_change: false }
  returns:
    retries: 0
    affinity: { idle_s: 1 }
    targets:
      - { connection: primary, model: "gpt-returns?inband_error=server_error" }
      - { connection: standby, model: gpt-returns, model_change: false }
  ejects:
    retries: 0
    health: { consecutive_failures: 1, eject_base_s: 120, recovery_probe_s: 0 }
    targets:
      - { connection: primary, model: "gpt-ejects?inband_error=server_error" }
      - { connection: standby, model: gpt-ejects, model_change: false }
`);
});
afterAll(() => gateway.close());

/** One turn; `session` in x-switchyard-session. Returns who served it and its record's affinity. */
async function turn(route: string, options: { session?: string; stream?: boolean }): Promise<{ servedBy: string | null; affinity: string | undefined }> {
  const { response, record } = await turnWithRecord(route, options);
  return { servedBy: response.headers.get('x-switchyard-served-by'), affinity: record.affinity };
}

async function turnWithRecord(route: string, options: { session?: string; stream?: boolean }): Promise<{ response: Response; record: RequestRecord }> {
  const response = await postChat(gateway.url, { model: route, messages: hello, stream: options.stream ?? false }, options.session ? { 'x-switchyard-session': options.session } : {});
  await response.text();
  expect(response.status).toBe(200);
  return { response, record: await fetchRecord(gateway.url, response.headers.get('x-request-id')!) };
}

const PRIMARY = (model: string) => `primary/${model}?inband_error=server_error`;

it('a failover moves the session to the standby, and it stays there after the primary is well again, which serves everyone else', async () => {
  const before = [];
  for (let index = 0; index < 3; index++) before.push(await turn('stays', { session: 'agent-1' }));
  expect(before).toEqual([
    { servedBy: PRIMARY('gpt-stays'), affinity: 'new' },
    { servedBy: PRIMARY('gpt-stays'), affinity: 'bound' },
    { servedBy: PRIMARY('gpt-stays'), affinity: 'bound' },
  ]);

  expect(await turn('stays', { session: 'agent-1', stream: true })).toEqual({ servedBy: 'standby/gpt-stays', affinity: 'moved' });
  // The primary answers again, and is still the route's first choice for a request without a binding.
  expect(await turn('stays', {})).toEqual({ servedBy: PRIMARY('gpt-stays'), affinity: undefined });
  expect(await turn('stays', { session: 'agent-2' })).toEqual({ servedBy: PRIMARY('gpt-stays'), affinity: 'new' });

  for (let index = 0; index < 5; index++) expect(await turn('stays', { session: 'agent-1' })).toEqual({ servedBy: 'standby/gpt-stays', affinity: 'bound' });
  // The standby (the directive-free model string) saw the failed-over turn and the five after it.
  expect(gateway.mock.attemptsFor('gpt-stays').filter((attempt) => attempt.model === 'gpt-stays')).toHaveLength(6);
});

it('a session whose bound target is ejected by another session goes to the next target without trying it, and is bound there', async () => {
  expect(await turn('ejects', { session: 'agent-4' })).toEqual({ servedBy: PRIMARY('gpt-ejects'), affinity: 'new' });
  // Another session's failure ejects the primary (one failure is enough on this route).
  expect(await turn('ejects', { session: 'agent-5', stream: true })).toEqual({ servedBy: 'standby/gpt-ejects', affinity: 'new' });
  const { response, record } = await turnWithRecord('ejects', { session: 'agent-4' });
  expect(response.headers.get('x-switchyard-served-by')).toBe('standby/gpt-ejects');
  expect(record.affinity).toBe('moved');
  expect(record.attempts).toHaveLength(1);
  expect(record.skipped).toEqual([expect.objectContaining({ connection: 'primary', reason: 'ejected' })]);
});

it('a session idle for affinity.idle_s has no binding left: its next turn goes to the preferred target again', async () => {
  expect(await turn('returns', { session: 'agent-3', stream: true })).toEqual({ servedBy: 'standby/gpt-returns', affinity: 'new' });
  // Idle for longer than idle_s (1 s).
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(await turn('returns', { session: 'agent-3' })).toEqual({ servedBy: PRIMARY('gpt-returns'), affinity: 'new' });
});
