import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Compilable } from 'kysely';
import { actorOf } from '../access/request-actor.js';
import { auditActorOf, type AuditAction, type AuditActor, type AuditTarget } from '../core/audit-entry.js';
import type { AuditedResult } from '../store/audited-writes.js';
import { storeCall } from '../store/store-call.js';
import type { StoreWrites } from '../store/store-writes.js';

/** Who caused a change and through which request: what every row of the trail says besides the change. */
export interface AuditContext {
  /** An actor of the admin API, or someone holding no role (a refused sign-in). */
  actor: AuditActor;
  requestId: string | null;
  sourceIp: string | null;
}

/** What changed: never a secret (a key's or token's value, the identity provider's client secret). */
export interface AuditEvent {
  action: AuditAction;
  target: AuditTarget;
  before?: unknown;
  after?: unknown;
}

/** The context of an admin request, which the route guard has identified. */
export function auditContextOf(request: IncomingMessage, requestId: string): AuditContext {
  return { actor: actorOf(request), requestId, sourceIp: request.socket.remoteAddress ?? null };
}

/**
 * The audit trail's writer (SPEC §15): a change in the store and its row go in one transaction,
 * numbered and chained by the store (store/audited-writes.ts).
 */
export class AuditTrail {
  readonly #writes: Pick<StoreWrites, 'audited'>;
  readonly #nowMs: () => number;

  constructor(writes: Pick<StoreWrites, 'audited'>, options: { nowMs?: () => number } = {}) {
    this.#writes = writes;
    this.#nowMs = options.nowMs ?? Date.now;
  }

  /**
   * Runs the change's statements and appends the event's row, in one transaction. With
   * `onlyIfChanged`, a first statement that changed nothing appends nothing.
   */
  change(context: AuditContext, event: AuditEvent, statements: readonly Compilable[], options: { onlyIfChanged?: boolean } = {}): Promise<AuditedResult> {
    const compiled = statements.map((statement) => {
      const { sql, parameters } = statement.compile();
      return { sql, parameters };
    });
    return storeCall(this.#writes.audited({ statements: compiled, entry: this.#entry(context, event), ...options }));
  }

  /** An event with nothing stored beside it: a sign-in, a config reload, a drill or canary run. */
  async event(context: AuditContext, event: AuditEvent): Promise<void> {
    await this.change(context, event, []);
  }

  #entry(context: AuditContext, event: AuditEvent) {
    return {
      id: `aud_${randomBytes(8).toString('hex')}`,
      at: new Date(this.#nowMs()).toISOString(),
      actor: auditActorOf(context.actor),
      action: event.action,
      target: event.target,
      before: event.before ?? null,
      after: event.after ?? null,
      request_id: context.requestId,
      source_ip: context.sourceIp,
    };
  }
}
