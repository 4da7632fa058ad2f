import { Agent, type Dispatcher } from 'undici';
import type { Cancellation } from '../engine/cancellation.js';
import type { ResponseHeaders, UpstreamRequest } from '../providers/spec.js';
import { UpstreamBody } from './upstream-body.js';

export interface UpstreamResponse {
  statusCode: number;
  headers: ResponseHeaders;
  body: UpstreamBody;
}

/**
 * Sends upstream requests over keep-alive pools (undici pools per origin inside one Agent),
 * through undici's dispatch API directly: its `request()` convenience wraps every response in a
 * Node stream, which measurably doubles the client's cost per request. Agents are made once per
 * connect timeout, since that is fixed per Agent. Phase timeouts abort the engine's
 * cancellation; undici's own would fire on a long generation.
 */
export class Transport {
  readonly #agents = new Map<number, Agent>();

  send(upstream: UpstreamRequest, options: { cancellation: Cancellation; connectTimeoutMs: number }): Promise<UpstreamResponse> {
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
      this.#agentFor(options.connectTimeoutMs).dispatch(
        {
          origin: url.origin,
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
    await Promise.all([...this.#agents.values()].map((agent) => agent.close()));
    this.#agents.clear();
  }

  #agentFor(connectTimeoutMs: number): Agent {
    let agent = this.#agents.get(connectTimeoutMs);
    if (!agent) {
      agent = new Agent({ connect: { timeout: connectTimeoutMs }, keepAliveTimeout: 30_000, connections: 512 });
      this.#agents.set(connectTimeoutMs, agent);
    }
    return agent;
  }
}
