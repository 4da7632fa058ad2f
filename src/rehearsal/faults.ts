/**
 * The fault catalogue of a rehearsal (docs/rehearse.md): how the target under test misbehaves,
 * as the built-in mock's directives, which it acts out in the target's own wire format (its
 * OpenAI, Anthropic, Gemini, Bedrock or Vertex errors and streams).
 */
export const FAULT_NAMES = [
  'rate_limit_short',
  'rate_limit_long',
  'rate_limit_bare',
  'overloaded',
  'server_error',
  'quota',
  'credential',
  'silent',
  'slow_first_token',
  'cut',
  'stall',
  'inband_error',
  'empty_answer',
  'context_length',
  'flapping',
  'model_gone',
] as const;

export type FaultName = (typeof FAULT_NAMES)[number];

export interface Fault {
  /** The mock's directives for the faulted target (`model?…`). */
  directives: string;
  /** A fault of the account, not of one model: every target on the connection acts it out. */
  connectionWide: boolean;
  /** Only a streamed answer can have it: not acted out on an embedding route. */
  streamOnly?: true;
  /** What the fault is, for the table's legend and the docs. */
  describe: string;
}

/** How long a `flapping` target is down, from the first request it gets. */
export const FLAP_DOWN_MS = 20_000;

export const FAULTS: Readonly<Record<FaultName, Fault>> = {
  rate_limit_short: { directives: 'error=rate_limit&retry_after=2', connectionWide: false, describe: '429, Retry-After 2 s' },
  rate_limit_long: { directives: 'error=rate_limit&retry_after=60', connectionWide: false, describe: '429, Retry-After 60 s' },
  rate_limit_bare: { directives: 'error=rate_limit', connectionWide: false, describe: '429 with no Retry-After' },
  overloaded: { directives: 'error=overloaded', connectionWide: false, describe: "the provider's overload (503, Anthropic's 529)" },
  server_error: { directives: 'status=500', connectionWide: false, describe: '500' },
  quota: { directives: 'error=insufficient_quota', connectionWide: true, describe: "the provider's quota or spend-cap answer" },
  credential: { directives: 'error=credential', connectionWide: true, describe: '401: the key is refused' },
  silent: { directives: 'silence', connectionWide: false, describe: 'never answers' },
  slow_first_token: { directives: 'first_token_ms=12000', connectionWide: false, describe: 'first token after 12 s' },
  cut: { directives: 'chunks=40&cut_after=20', connectionWide: false, streamOnly: true, describe: 'the stream is cut after 20 tokens' },
  stall: { directives: 'chunks=40&stall_after=20', connectionWide: false, streamOnly: true, describe: '20 tokens, then silence' },
  inband_error: { directives: 'chunks=40&inband_error=server_error&error_after=20', connectionWide: false, streamOnly: true, describe: 'an error inside a 200 stream' },
  empty_answer: { directives: 'chunks=0', connectionWide: false, streamOnly: true, describe: 'a 200 with no content' },
  context_length: { directives: 'error=context_length', connectionWide: false, describe: 'the request is over its context window' },
  flapping: { directives: `status=503&flap_down_s=${FLAP_DOWN_MS / 1000}`, connectionWide: false, describe: 'down 20 s, then up (traffic every 2 s)' },
  model_gone: { directives: 'status=404', connectionWide: false, describe: '404: the model does not exist' },
};

export function isFaultName(name: string): name is FaultName {
  return (FAULT_NAMES as readonly string[]).includes(name);
}
