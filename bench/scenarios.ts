/** What the load generator sends on each path, so that every path asks the mock for the same answer. */

export const pathKinds = ['direct', 'bare-proxy', 'gateway', 'gateway-translated', 'gateway-redis'] as const;
/**
 * How a path reaches the mock: itself, through the bare proxy (the floor), or through Switchyard
 * with state in memory or Redis; `gateway-translated` is `gateway` to the mock speaking Anthropic's
 * Messages wire, so a Chat caller's body and every answer are translated both ways where `gateway`
 * relays them (the working tree only, for the relay's gain apart).
 */
export type PathKind = (typeof pathKinds)[number];

/** The Switchyard paths. */
export function isGateway(kind: PathKind): kind is 'gateway' | 'gateway-translated' | 'gateway-redis' {
  return kind === 'gateway' || kind === 'gateway-translated' || kind === 'gateway-redis';
}

/** What the mock is asked to answer: `chunks` pieces of text, streamed `chunkMs` apart (0: all at once). */
export interface Answer {
  chunks: number;
  chunkMs: number;
}

export const scenarioNames = ['non-streaming', 'streaming-20', 'streaming-64', 'unloaded'] as const;
export type ScenarioName = (typeof scenarioNames)[number];

export interface Scenario {
  name: ScenarioName;
  answer: Answer;
  stream: boolean;
  /** Loaded runs use `--connections`; the unloaded one a single connection, where added latency shows without queueing. */
  load: 'loaded' | 'one-connection';
}

const answer64: Answer = { chunks: 64, chunkMs: 0 };

/** The throughput mode's runs, in report order: the same 64-chunk text whole and streamed, a short stream, and one connection. */
export const scenarios: readonly Scenario[] = [
  { name: 'non-streaming', answer: answer64, stream: false, load: 'loaded' },
  { name: 'streaming-20', answer: { chunks: 20, chunkMs: 0 }, stream: true, load: 'loaded' },
  { name: 'streaming-64', answer: answer64, stream: true, load: 'loaded' },
  { name: 'unloaded', answer: answer64, stream: false, load: 'one-connection' },
];

export function scenarioNamed(name: ScenarioName): Scenario {
  return scenarios.find((scenario) => scenario.name === name)!;
}

/** The model string the mock sees on every path; its directives shape the answer. */
export function upstreamModel(answer: Answer): string {
  return `gpt-mock?chunks=${answer.chunks}${answer.chunkMs > 0 ? `&chunk_ms=${answer.chunkMs}` : ''}`;
}

/** The gateway route whose single target asks the external mock for `answer`. */
export function gatewayRoute(answer: Answer): string {
  return `bench-${answer.chunks}${answer.chunkMs > 0 ? `-every-${answer.chunkMs}ms` : ''}`;
}

export const chatPath = '/v1/chat/completions';

/** The request body for one answer on one path; only the model differs between paths. */
export function requestBody(kind: PathKind, answer: Answer, stream: boolean): string {
  return JSON.stringify({
    model: isGateway(kind) ? gatewayRoute(answer) : upstreamModel(answer),
    messages: [
      { role: 'system', content: 'You are a benchmark target. Answer briefly.' },
      { role: 'user', content: 'Count for me, one word per number.' },
    ],
    ...(stream ? { stream: true } : {}),
  });
}
