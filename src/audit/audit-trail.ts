import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Compilable } from 'kysely';
import { actorOf } from '../access/request-actor.js';
import { SYSTEM_ACTOR } from '../core/actor.js';
import { auditActorOf, type AuditAction, type AuditActor, type AuditEntry, type AuditTarget } from '../core/audit-entry.js';
import { BatchWriter } from '../sinks/batch-writer.js';
import type { SpillFile } from '../sinks/spill-file.js';
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

/** The gateway acting on its own: a config reload, a scheduled drill or canary run. */
export const SYSTEM_CONTEXT: AuditContext = { actor: SYSTEM_ACTOR, requestId: null, sourceIp: null };

/** The context of an admin request, which the route guard has identified. */
export function auditContextOf(request: IncomingMessage, requestId: string): AuditContext {
  return { actor: actorOf(request), requestId, sourceIp: request.socket.remoteAddress ?? null };
}

export interface AuditTrailOptions {
  nowMs?: () => number;
  /** Where events wait while the store refuses them (see `event`); without one they wait in memory. */
  spill?: SpillFile<AuditEntry>;
  /** Events the store refused, and drop notices; `event` itself never throws. */
  onError?: (error: unknown) => void;
}

/**
 * The audit trail's writer (SPEC §15): a change in the store and its row go in one transaction,
 * numbered and chained by the store (store/audited-writes.ts). An event with no change beside it
 * goes through a writer of its own, which spills it while the store is out and replays it later.
 */
export class AuditTrail {
  readonly #writes: Pick<StoreWrites, 'audited'>;
  readonly #nowMs: () => number;
  readonly #events: BatchWriter<AuditEntry>;

  constructor(writes: Pick<StoreWrites, 'audited'>, options: AuditTrailOptions = {}) {
    this.#writes = writes;
    this.#nowMs = options.nowMs ?? Date.now;
    this.#events = new BatchWriter<AuditEntry>({
      name: 'AuditTrail',
      itemName: 'audit event',
      // One transaction per entry, each chained to the row before; an entry stored already (its `id`) is skipped.
      writeBatch: async (entries) => {
        for (const entry of entries) await writes.audited({ statements: [], entry });
      },
      ...(options.spill ? { spill: options.spill } : {}),
      ...(options.onError ? { onError: options.onError } : {}),
    });
  }

  /**
   * Runs the change's statements and appends the event's row, in one transaction: when the store
   * cannot take it, neither is made and this rejects (the caller answers 503). With
   * `onlyIfChanged`, a first statement that changed nothing appends nothing.
   */
  change(context: AuditContext, event: AuditEvent, statements: readonly Compilable[], options: { onlyIfChanged?: boolean } = {}): Promise<AuditedResult> {
    const compiled = statements.map((statement) => {
      const { sql, parameters } = statement.compile();
      return { sql, parameters };
    });
    return storeCall(this.#writes.audited({ statements: compiled, entry: this.#entry(context, event), ...options }));
  }

  /**
   * An event with nothing stored beside it: a sign-in, a config reload, a drill or canary run. It
   * happened whether or not the store takes its row now, so this never rejects: a row the store
   * refuses waits in the spill file (after the ones waiting already, in order), is replayed once
   * the store is back, and is stored once (its `id`). Resolves once the row is stored or spilled.
   */
  async event(context: AuditContext, event: AuditEvent): Promise<void> {
    this.#events.enqueue(this.#entry(context, event));
    try {
      await this.#events.flush();
    } catch {
      // Reported through onError; the row waits in the spill file (or, without one, in memory).
    }
  }

  /** Events waiting in this process's spill file for the store. */
  get spilledCount(): number {
    return this.#events.spilledCount;
  }

  /** Events lost (a full buffer with no spill file, or after close); never reset. */
  get droppedCount(): number {
    return this.#events.droppedCount;
  }

  /** Writes the events still waiting, or spills them when the store refuses. */
  close(): Promise<void> {
    return this.#events.close();
  }

  #entry(context: AuditContext, event: AuditEvent): AuditEntry {
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
