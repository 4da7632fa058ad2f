import {
  UpstreamFailureError,
  type ChatMessage,
  type ChatRequest,
  type ProviderAdapter,
  type TargetContext,
  type UpstreamFailure,
} from '../../src/providers/spec.js';

type Json = Record<string, unknown>;

export function userText(text: string): ChatMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

/** The smallest chat an adapter accepts; each test adds only the fields it is about. */
export function minimalRequest(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return { messages: [userText('Hello')], stream: false, includeUsage: false, ...overrides };
}

/** `bodyOf(request, target?)`: the JSON body the adapter would send to the target. */
export function bodyBuilder(adapter: Pick<ProviderAdapter, 'buildRequest'>, defaultTarget: TargetContext) {
  return (request: ChatRequest, target: TargetContext = defaultTarget): Json => JSON.parse(adapter.buildRequest(request, target).body) as Json;
}

/** The failure an adapter call throws; any other outcome fails the test. */
export function failureOf(action: () => unknown): UpstreamFailure {
  try {
    action();
  } catch (error) {
    if (error instanceof UpstreamFailureError) return error.error;
    throw error;
  }
  throw new Error('expected an UpstreamFailureError');
}
