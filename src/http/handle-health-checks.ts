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
}

/** `GET /readyz`: ready to serve, with how many routes and on which state; a gateway on local state for want of Redis still serves. */
export function handleReadiness(_request: IncomingMessage, response: ServerResponse, deps: ReadinessDeps): void {
  sendJson(response, 200, { status: 'ready', routes: deps.routes(), state: deps.state() });
}
