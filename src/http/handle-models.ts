import type { ServerResponse } from 'node:http';
import type { Config } from '../config/schema.js';
import { sendJson } from './send.js';

/** `GET /v1/models`: the configured routes, in the OpenAI list shape. */
export function handleModels(response: ServerResponse, config: Config, startedAtSeconds: number): void {
  sendJson(response, 200, {
    object: 'list',
    data: Object.keys(config.routes).map((id) => ({ id, object: 'model', created: startedAtSeconds, owned_by: 'switchyard' })),
  });
}
