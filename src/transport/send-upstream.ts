import { Pool, type Dispatcher } from 'undici';
import type { Cancellation } from '../core/cancellation.js';
import type { ResponseHeaders, UpstreamRequest } from '../providers/spec.js';
import { UpstreamBody } from './upstream-body.js';

export interface UpstreamResponse {
  statusCode: number;
  headers: ResponseHeaders;
  body: UpstreamBody;
}

/** The pool size of an origin no connection of the config sends to (the `max_in_flight` default). */
const DEFAULT_POOL_CONNECTIONS = 256;

export interface TransportOptions {
  /** Sockets each origin's pool may open, from the config in force (see `upstreamPoolSizes`). */
  poolSizes(): ReadonlyMap<string, number>;
}

/**
 * Sends upstream requests over keep-alive pools, one per origin and connect timeout (the connect
 * timeout is fixed per pool), through undici's dispatch API directly: its `request()` convenience
 * wraps every response in a Node stream, which measurably doubles the client's cost per request.
 * Each pool is as large as the sum of `max_in_flight` of the connections on its origin, so a
 * request that load shedding let through never waits inside the pool; a reload that changes the
 * sum gets a new pool, and the old one closes once its requests are done. Phase timeouts abort
 * the engine's cancellation; undici's own would fire on a long generation.
 */
export class Transport {
  readonly #pools = new Map<string, { pool: Pool; connections: number }>();
  /** Pools replaced by a reload, closing as their last requests end. */
  readonly #retired = new Set<Promise<void>>();
  readonly #poolSizes: () => ReadonlyMap<string, number>;

  constructor(options: TransportOptions) {
    this.#poolSizes = options.poolSizes;
  }

  /**
   * Sends one request. `onSent` hears when the request is written to an upstream socket: the
   * moment the upstream has it, after any connect, and the moment its silence starts to count.
   */
  send(upstream: UpstreamRequest, options: { cancellation: Cancellation; connectTimeoutMs: number; onSent?: () => void }): Promise<UpstreamResponse> {
    const { cancellation } = options;
    if (cancellation.aborted) return Promise.reject(cancellation.reason);
    const url = new URL(upstream.url);
    return new Promise<UpstreamResponse>((resolve, reject) => {
      const body = new UpstreamBody();
      let controller: Dispatcher.DispatchController | undefined;
      let started = false;
      let settled = false;
      const finish = (error?: unknown) => {
        if (settled) return;
        settled = true;
        stopListening();
        if (error === undefined) return;
        if (started) body.fail(error);
        else reject(error);
      };
      const stopListening = cancellation.onAbort((reason) => {
        if (controller && !controller.aborted) controller.abort(reason as Error);
        else if (!started) finish(reason);
      });
      this.#poolFor(url.origin, options.connectTimeoutMs).dispatch(
        {
          path: url.pathname + url.search,
          method: upstream.method,
          headers: upstream.headers,
          body: upstream.body,
          headersTimeout: 0,
          bodyTimeout: 0,
        },
        {
          onRequestStart(dispatchController) {
            controller = dispatchController;
            body.attach(dispatchController);
            if (cancellation.aborted) dispatchController.abort(cancellation.reason as Error);
            else options.onSent?.();
          },
          onResponseStart(_controller, statusCode, headers) {
            if (statusCode < 200) return;
            started = true;
            resolve({ statusCode, headers, body });
          },
          onResponseData(_controller, chunk) {
            body.push(chunk);
          },
          onResponseEnd() {
            body.end();
            finish();
          },
          onResponseError(_controller, error) {
            finish(cancellation.aborted ? cancellation.reason : error);
          },
        },
      );
    });
  }

  async close(): Promise<void> {
    const closing = [...this.#pools.values()].map(({ pool }) => pool.close());
    this.#pools.clear();
    await Promise.all([...closing, ...this.#retired]);
  }

  #poolFor(origin: string, connectTimeoutMs: number): Pool {
    const key = `${connectTimeoutMs} ${origin}`;
    const connections = this.#poolSizes().get(origin) ?? DEFAULT_POOL_CONNECTIONS;
    const current = this.#pools.get(key);
    if (current?.connections === connections) return current.pool;
    if (current) {
      const closed: Promise<void> = current.pool
        .close()
        .catch(() => undefined)
        .finally(() => this.#retired.delete(closed));
      this.#retired.add(closed);
    }
    const pool = new Pool(origin, { connections, connect: { timeout: connectTimeoutMs }, keepAliveTimeout: 30_000 });
    this.#pools.set(key, { pool, connections });
    return pool;
  }
}
