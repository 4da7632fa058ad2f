/**
 * Known OpenAI-compatible hosts, one row each. Adding a host is adding a row.
 *
 * `dropParams` lists only top-level request fields the host's own documentation says it
 * rejects or does not know; naming `max_completion_tokens` there makes the output limit go
 * as `max_tokens` (see `openai/build-request.ts`). Hosts not listed get the generic row.
 */

import { MISTRAL_TOOL_CALL_IDS, type ToolCallIdRule } from '../shared/tool-call-ids.js';

export type HostAuth = { header: 'authorization'; scheme: 'Bearer' } | { header: string };

export interface CompatibleHost {
  name: string;
  /** Matched against the base URL's `host` (with port) or `hostname`. */
  hostnames: readonly string[];
  defaultBaseUrl?: string;
  auth: HostAuth;
  dropParams: readonly string[];
  /** Hosts stricter about tool-call ids than OpenAI. */
  toolCallIds?: ToolCallIdRule;
}

const BEARER: HostAuth = { header: 'authorization', scheme: 'Bearer' };

export const COMPATIBLE_HOSTS: readonly CompatibleHost[] = [
  {
    name: 'groq',
    hostnames: ['api.groq.com'],
    defaultBaseUrl: 'https://api.groq.com/openai/v1',
    auth: BEARER,
    // Groq's OpenAI-compatibility page: these fields answer 400 when supplied.
    dropParams: ['logprobs', 'logit_bias', 'top_logprobs'],
  },
  {
    name: 'together',
    hostnames: ['api.together.xyz', 'api.together.ai'],
    defaultBaseUrl: 'https://api.together.xyz/v1',
    auth: BEARER,
    dropParams: [],
  },
  {
    name: 'fireworks',
    hostnames: ['api.fireworks.ai'],
    defaultBaseUrl: 'https://api.fireworks.ai/inference/v1',
    auth: BEARER,
    dropParams: [],
  },
  {
    name: 'deepseek',
    hostnames: ['api.deepseek.com'],
    defaultBaseUrl: 'https://api.deepseek.com',
    auth: BEARER,
    dropParams: [],
  },
  {
    name: 'mistral',
    hostnames: ['api.mistral.ai'],
    defaultBaseUrl: 'https://api.mistral.ai/v1',
    auth: BEARER,
    // Mistral validates strictly (422 `extra_forbidden`) and its chat schema has none of
    // these; its seed is `random_seed`.
    dropParams: [
      'max_completion_tokens',
      'stream_options',
      'user',
      'seed',
      'logprobs',
      'top_logprobs',
      'logit_bias',
      'store',
      'metadata',
      'service_tier',
    ],
    // "Tool call id was … but must be a-z, A-Z, 0-9, with a length of 9" (a 400 otherwise).
    toolCallIds: MISTRAL_TOOL_CALL_IDS,
  },
  {
    name: 'openrouter',
    hostnames: ['openrouter.ai'],
    defaultBaseUrl: 'https://openrouter.ai/api/v1',
    auth: BEARER,
    dropParams: [],
  },
  {
    name: 'xai',
    hostnames: ['api.x.ai'],
    defaultBaseUrl: 'https://api.x.ai/v1',
    auth: BEARER,
    dropParams: [],
  },
  {
    name: 'perplexity',
    hostnames: ['api.perplexity.ai'],
    defaultBaseUrl: 'https://api.perplexity.ai',
    auth: BEARER,
    // The Sonar chat schema knows only `max_tokens`.
    dropParams: ['max_completion_tokens'],
  },
  {
    name: 'ollama',
    hostnames: ['localhost:11434', '127.0.0.1:11434', 'ollama.com'],
    defaultBaseUrl: 'http://127.0.0.1:11434/v1',
    auth: BEARER,
    // Ollama's OpenAI-compatibility page lists `max_tokens` and not the newer name, and
    // ignores fields it does not know — the output limit would be lost silently.
    dropParams: ['max_completion_tokens'],
  },
  {
    name: 'vllm',
    hostnames: ['localhost:8000', '127.0.0.1:8000'],
    defaultBaseUrl: 'http://127.0.0.1:8000/v1',
    auth: BEARER,
    dropParams: [],
  },
  {
    name: 'lm-studio',
    hostnames: ['localhost:1234', '127.0.0.1:1234'],
    defaultBaseUrl: 'http://127.0.0.1:1234/v1',
    auth: BEARER,
    dropParams: [],
  },
];

export const GENERIC_COMPATIBLE_HOST: CompatibleHost = {
  name: 'generic',
  hostnames: [],
  auth: BEARER,
  dropParams: [],
};

/**
 * The row for a connection's base URL. Total: a URL that does not parse (config validation
 * reports those) or an unknown host gets the generic row.
 */
export function resolveCompatibleHost(baseUrl: string): CompatibleHost {
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  if (url === undefined) return GENERIC_COMPATIBLE_HOST;
  const host = url.host.toLowerCase();
  const hostname = url.hostname.toLowerCase();
  return (
    COMPATIBLE_HOSTS.find((row) => row.hostnames.includes(host) || row.hostnames.includes(hostname)) ??
    GENERIC_COMPATIBLE_HOST
  );
}
