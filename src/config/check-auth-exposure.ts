import { isLoopback } from './is-loopback.js';
import type { Config } from './schema.js';

/**
 * `auth.mode: none` is for local use only (docs/keys-and-budgets.md): on an address other machines can reach,
 * an open gateway would spend the operator's provider keys for anyone. Returns why the pair is
 * refused, or undefined when it is fine.
 */
export function authExposureProblem(config: Config, host: string): string | undefined {
  if (config.auth.mode !== 'none' || isLoopback(host)) return undefined;
  return `auth.mode: none is only allowed while listening on loopback (127.0.0.1, ::1, localhost), not on ${host}: set auth.mode: keys and create keys with \`switchyard keys create\``;
}
