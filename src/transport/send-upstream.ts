import { Agent, request, type Dispatcher } from 'undici';
import type { UpstreamRequest } from '../providers/spec.js';

export type UpstreamResponse = Dispatcher.ResponseData;

/**
 * Sends upstream requests over keep-alive pools (undici pools per origin inside one Agent).
 * Agents are made once per connect timeout, since that is fixed per Agent.
 */
export class Transport {
  readonly #agents = new Map<number, Agent>();

  send(upstream: UpstreamRequest, options: { signal: AbortSignal; connectTimeoutMs: number }): Promise<UpstreamResponse> {
    return request(upstream.url, {
      method: upstream.method,
      headers: upstream.headers,
      body: upstream.body,
      signal: options.signal,
      dispatcher: this.#agentFor(options.connectTimeoutMs),
      // Phase timeouts are the engine's AbortSignals; undici's own would fire on a long generation.
      headersTimeout: 0,
      bodyTimeout: 0,
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
