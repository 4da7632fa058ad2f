import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './send.js';

/** `GET /healthz`: the process answers. */
export function handleLiveness(_request: IncomingMessage, response: ServerResponse): void {
  sendJson(response, 200, { status: 'ok' });
}

export interface ReadinessDeps {
  /** Routes in the config in force. */
  routes(): number;
  /** Where shared state is kept now (`memory`, `shared`, or `degraded` while Redis is away). */
  state(): string;
  /** Records, spend rows and audit events waiting in this process's spill files for the store. */
  spill(): { records: number; spend: number; audit: number };
}

/**
 * `GET /readyz`: ready to serve, with how many routes, on which state, and what waits in this
 * process's spill files; a gateway on local state for want of Redis, or spilling for want of its
 * store, still serves.
 */
export function handleReadiness(_request: IncomingMessage, response: ServerResponse, deps: ReadinessDeps): void {
  sendJson(response, 200, { status: 'ready', routes: deps.routes(), state: deps.state(), spill: deps.spill() });
}
