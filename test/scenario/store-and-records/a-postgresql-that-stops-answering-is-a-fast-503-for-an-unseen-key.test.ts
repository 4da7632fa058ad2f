import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestGateway } from '../../support/start-gateway.js';
import { postgresForThisFile } from '../../support/postgres-server.js';
import { createKey } from '../../support/virtual-keys.js';
import { askPaid, startGatewayOnPostgres } from '../postgres-helpers.js';
import { ADMIN_TOKEN } from '../scenario-helpers.js';

/**
 * A TCP relay in front of PostgreSQL that can go silent: frozen, it stops moving bytes either way
 * (connections stay open, nothing is answered), as a database host that hangs would.
 */
class FreezableRelay {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #frozen = false;

  constructor(targetPort: number) {
    this.#server = createServer((client) => {
      const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => undefined);
        if (this.#frozen) socket.pause();
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return (this.#server.address() as { port: number }).port;
  }

  freeze(): void {
    this.#frozen = true;
    for (const socket of this.#sockets) socket.pause();
  }

  thaw(): void {
    this.#frozen = false;
    for (const socket of this.#sockets) socket.resume();
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

const { available, server } = postgresForThisFile();
const spillDirectory = mkdtempSync(join(tmpdir(), 'switchyard-pg-spill-'));
let relay: FreezableRelay | undefined;
let gateway: TestGateway | undefined;

beforeAll(async () => {
  if (!available) return;
  const direct = await server().createDatabase('silent');
  relay = new FreezableRelay(server().port);
  const relayPort = await relay.listen();
  gateway = await startGatewayOnPostgres(direct.replace(`:${server().port}/`, `:${relayPort}/`), spillDirectory);
}, 60_000);
afterAll(async () => {
  relay?.thaw();
  await gateway?.close();
  await relay?.close();
  rmSync(spillDirectory, { recursive: true, force: true });
});

it.skipIf(!available)('while PostgreSQL answers nothing, an unseen key gets 503 gateway_unavailable within the bound, and a known key is still served', async () => {
  const known = await createKey(gateway!.url, ADMIN_TOKEN, { name: 'known' });
  const unseen = await createKey(gateway!.url, ADMIN_TOKEN, { name: 'unseen' });
  expect((await askPaid(gateway!.url, known.key)).status).toBe(200);

  relay!.freeze();
  const startedAtMs = Date.now();
  const refused = await askPaid(gateway!.url, unseen.key);
  const elapsedMs = Date.now() - startedAtMs;
  expect(refused.status).toBe(503);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('gateway_unavailable');
  expect(refused.headers.get('retry-after')).not.toBeNull();
  // One store call's bound (1 s), with room for a loaded machine: never the caller's whole deadline.
  expect(elapsedMs).toBeLessThan(10_000);

  const served = await askPaid(gateway!.url, known.key);
  expect(served.status).toBe(200);
  expect(gateway!.mock.attemptsFor('gpt-paid')).toHaveLength(2);
}, 30_000);
