/**
 * What the fleet scenario tests share: a fleet per test file on its own Redis, PostgreSQL and mock
 * provider, a chat call with a virtual key, and the admin calls. Not a test file itself.
 */
import { afterAll, beforeAll } from 'vitest';
import { startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { FLEET_ADMIN_TOKEN, startGatewayFleet, type GatewayFleet } from '../support/gateway-fleet.js';
import { postgresForThisFile, type PostgresServer } from '../support/postgres-server.js';
import { redisClusterForThisFile, type RedisCluster } from '../support/redis-cluster.js';
import { redisForThisFile, type RedisServer } from '../support/redis-server.js';
import { hello } from '../scenario/scenario-helpers.js';

export interface FleetForThisFile {
  /** False when this machine has no redis-server or PostgreSQL: the file's tests skip (loudly). */
  available: boolean;
  fleet(): GatewayFleet;
  /** The one upstream every replica sends to: what the provider saw, fleet-wide. */
  mock(): MockProvider;
  /** The fleet's Redis (not on a cluster). */
  redis(): RedisServer;
  /** The fleet's Redis Cluster (`onCluster` only). */
  cluster(): RedisCluster;
  postgres(): PostgresServer;
  /** The fleet's database, for reading its tables directly. */
  databaseUrl(): string;
}

/**
 * A fleet for the calling test file, started before its tests and stopped after them (before the
 * Redis and PostgreSQL under it). `yaml` gets the mock provider's URL and returns the connections
 * and routes (and anything else) of the config. `onCluster`: state on a 3-primary Redis Cluster
 * instead of one Redis. `sharedDirectory`: every replica started in one working directory.
 */
export function fleetForThisFile(options: { yaml: (mockUrl: string) => string; replicas?: number; onCluster?: boolean; sharedDirectory?: boolean }): FleetForThisFile {
  const redis = options.onCluster ? undefined : redisForThisFile();
  const cluster = options.onCluster ? redisClusterForThisFile() : undefined;
  const postgres = postgresForThisFile();
  const available = (redis ?? cluster)!.available && postgres.available;
  let mock: MockProvider | undefined;
  let fleet: GatewayFleet | undefined;
  let databaseUrl: string | undefined;
  beforeAll(async () => {
    if (!available) return;
    mock = await startMockProvider();
    databaseUrl = await postgres.server().createDatabase('fleet');
    fleet = await startGatewayFleet({
      redis: redis ? { url: redis.server().url } : { clusterNodes: cluster!.cluster().nodes },
      postgresUrl: databaseUrl,
      yaml: options.yaml(mock.url),
      ...(options.replicas === undefined ? {} : { replicas: options.replicas }),
      ...(options.sharedDirectory ? { sharedDirectory: true } : {}),
    });
  }, 120_000);
  afterAll(async () => {
    await fleet?.stop();
    await mock?.close();
  });
  return {
    available,
    fleet: () => fleet!,
    mock: () => mock!,
    redis: () => redis!.server(),
    cluster: () => cluster!.cluster(),
    postgres: () => postgres.server(),
    databaseUrl: () => databaseUrl!,
  };
}

/** A `provider: mock` connection named `mock` on the test's mock provider. */
export function mockConnectionYaml(mockUrl: string): string {
  return `connections:
  mock: { provider: mock, base_url: "${mockUrl}" }`;
}

export interface ChatAnswer {
  status: number;
  headers: Headers;
  body: { error?: { code: string | null; message: string; type: string } } & Record<string, unknown>;
}

/** `POST /v1/chat/completions` to route `r` (unless `fields` names another) with the key as bearer; every answer is returned. */
export async function chat(replicaUrl: string, key: string, fields: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<ChatAnswer> {
  const response = await fetch(`${replicaUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'r', messages: hello, ...fields }),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as ChatAnswer['body'] };
}

/** An admin call with the fleet's token; anything but a 2xx fails the test. */
export async function adminCall<T = any>(replicaUrl: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${replicaUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${FLEET_ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} → ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** `POST /admin/keys` on a replica; returns the id and the secret. */
export function createFleetKey(replicaUrl: string, fields: Record<string, unknown>): Promise<{ id: string; key: string }> {
  return adminCall(replicaUrl, 'POST', '/admin/keys', fields);
}

/** `POST /admin/teams` on a replica; returns the team's id. */
export async function createFleetTeam(replicaUrl: string, fields: Record<string, unknown>): Promise<string> {
  return (await adminCall<{ id: string }>(replicaUrl, 'POST', '/admin/teams', fields)).id;
}

/** What `/admin/health` on a replica says of one deployment (`connection/model`). */
export async function healthOf(replicaUrl: string, deployment: string): Promise<{ state: string } & Record<string, unknown>> {
  const { data } = await adminCall<{ data: ({ deployment: string; state: string } & Record<string, unknown>)[] }>(replicaUrl, 'GET', '/admin/health');
  const found = data.find((entry) => entry.deployment === deployment);
  if (!found) throw new Error(`no deployment ${deployment} in /admin/health: ${JSON.stringify(data.map((entry) => entry.deployment))}`);
  return found;
}

/** What `/readyz` on a replica says of state. */
export async function stateOf(replicaUrl: string): Promise<string> {
  const response = await fetch(`${replicaUrl}/readyz`, { signal: AbortSignal.timeout(5_000) });
  return ((await response.json()) as { state: string }).state;
}

export interface Asked {
  id: string;
  status: number;
  code?: string;
}

/** Requests one after another on a replica until told to stop: traffic that flows through an outage. */
export function keepAsking(replicaUrl: string, key: string, fields: Record<string, unknown> = {}): { answers: Asked[]; stop(): Promise<Asked[]> } {
  const answers: Asked[] = [];
  let stopping = false;
  const loop = (async () => {
    while (!stopping) answers.push(asked(await chat(replicaUrl, key, fields)));
  })();
  // A test that fails before `stop` leaves the loop to fail once its replica is gone: `stop` still
  // reports that, but it must not surface as an unhandled rejection in some later test.
  loop.catch(() => undefined);
  return {
    answers,
    async stop() {
      stopping = true;
      await loop;
      return answers;
    },
  };
}

/** The request id, status and error code of an answer. */
export function asked(answer: ChatAnswer): Asked {
  const code = answer.body.error?.code;
  return { id: answer.headers.get('x-request-id')!, status: answer.status, ...(code ? { code } : {}) };
}
