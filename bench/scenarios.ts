/** What the load generator sends on each path, so that every path asks the mock for the same answer. */

export const pathNames = ['direct', 'bare-proxy', 'gateway', 'gateway-redis'] as const;
export type PathName = (typeof pathNames)[number];

/** The two Switchyard paths: state in the gateway's memory, or in Redis (the fleet's setting). */
export function isGateway(path: PathName): path is 'gateway' | 'gateway-redis' {
  return path === 'gateway' || path === 'gateway-redis';
}

export const scenarioNames = ['non-streaming', 'streaming'] as const;
export type ScenarioName = (typeof scenarioNames)[number];

/** Content chunks per answer: a streamed answer is this many `delta.content` events (the brief asks ≥ 50). */
export const contentChunks = 64;

/** The model string the mock sees on every path; the directive sizes the answer. */
export const upstreamModel = `gpt-mock?chunks=${contentChunks}`;

/** The gateway route whose single target is `upstreamModel` on the external mock. */
export const gatewayRoute = 'bench';

export const chatPath = '/v1/chat/completions';

/** The request body for one scenario on one path; only the model differs between paths. */
export function requestBody(path: PathName, scenario: ScenarioName): string {
  return JSON.stringify({
    model: isGateway(path) ? gatewayRoute : upstreamModel,
    messages: [
      { role: 'system', content: 'You are a benchmark target. Answer briefly.' },
      { role: 'user', content: 'Count for me, one word per number.' },
    ],
    ...(scenario === 'streaming' ? { stream: true } : {}),
  });
}
