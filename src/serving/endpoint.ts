import type { IncomingHttpHeaders } from 'node:http';
import type { Demand } from '../admission/admit-request.js';
import type { Operation } from '../engine/run-attempt.js';
import type { ErrorEnvelope, StreamRenderer } from '../dialects/caller-dialect.js';
import type { StreamEvent } from '../providers/spec.js';
import type { Principal } from '../keys/authenticate.js';
import type { RecordDraft } from '../records/record-draft.js';
import type { ResolvedRoute, ResolvedTarget } from '../routing/resolve-route.js';

/**
 * How an answer reaches the caller: one JSON body (a `JsonText` when relayed), or a stream of
 * events for the SSE responder (`relayed`: its frames go out as the provider sent them);
 * `withdrawnHeaders` are `responseHeaders` that do not hold for the target that answered.
 */
export type Rendered = ({ json: unknown } | { events: AsyncIterable<StreamEvent[]>; relayed?: true }) & { withdrawnHeaders?: readonly string[] };

/**
 * What one inference endpoint adds to the shared pipeline: how its body parses, what it may
 * consume, which engine operation serves it and how the caller's dialect answers.
 */
export interface Endpoint<Parsed extends { requestedModel: string }, Answer> {
  /** The record's `operation`; unset for chat. */
  readonly operation?: 'embeddings' | 'responses';
  /** The endpoint half of an idempotency scope; an endpoint without one ignores `Idempotency-Key`. */
  readonly idempotencyScope?: string;
  /** Turns the body into the one `parse` reads, before it (the Responses API expands a stored conversation). */
  prepareBody?(body: unknown, principal: Principal): Promise<unknown>;
  /** `text`: the body as it came, when `body` is what it parses to (no `prepareBody` changed it). */
  parse(body: unknown, headers: IncomingHttpHeaders, text?: string): Parsed;
  demand(parsed: Parsed): Demand;
  /** `sessionId`: the request's session (docs/sessions.md), which may key a provider's prompt cache. */
  operationOf(parsed: Parsed, route: ResolvedRoute, sessionId: string | undefined): Operation<Answer>;
  errorBody(error: ErrorEnvelope): unknown;
  /** Headers every answer past the gate carries, a final error included. */
  responseHeaders?(parsed: Parsed): Record<string, string>;
  /** The SSE responder of a streamed request (its presence also keeps a heartbeat); undefined otherwise. */
  streamRenderer(parsed: Parsed, draft: RecordDraft): StreamRenderer | undefined;
  render(answer: Answer, context: { parsed: Parsed; served: ResolvedTarget; draft: RecordDraft }): Rendered;
  /**
   * Keeps a successful answer's whole object (the JSON body, or a stream renderer's `finalAnswer`)
   * before its last byte leaves, so a next request sent the instant it arrives finds it. It may
   * change the object, which is sent after it.
   */
  keepAnswer?(answer: Record<string, unknown>, context: { parsed: Parsed; served: ResolvedTarget; principal: Principal }): Promise<void>;
}
