import type { Actor } from './actor.js';

/** The actions of SPEC §15, `<object>.<verb>`. */
export const AUDIT_ACTIONS = [
  'key.create',
  'key.revoke',
  'key.rotate',
  'key.update',
  'team.create',
  'team.update',
  'team.delete',
  'token.create',
  'token.revoke',
  'config.reload',
  'drill.run',
  'canary.run',
  'signin',
  'signin.refused',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What an audit row says about who acted: the actor without its grants. */
export interface AuditActor {
  kind: Actor['kind'];
  id: string;
  name: string;
  role: Actor['role'] | null;
}

export interface AuditTarget {
  kind: string;
  id: string | null;
}

/** One row of the trail before the store numbers and chains it. Never holds a secret. */
export interface AuditEntry {
  /** `aud_…`: a row replayed from the spill is stored once. */
  id: string;
  /** ISO 8601. */
  at: string;
  actor: AuditActor;
  action: AuditAction;
  target: AuditTarget;
  before: unknown;
  after: unknown;
  request_id: string | null;
  source_ip: string | null;
}

/** A stored row, as `GET /admin/audit` shows it. */
export interface AuditRow extends Omit<AuditEntry, 'id'> {
  seq: number;
  prev_hash: string;
  hash: string;
}

/** The fields of an actor the row keeps (an `Actor` has its grants besides). */
export function auditActorOf(actor: AuditActor): AuditActor {
  return { kind: actor.kind, id: actor.id, name: actor.name, role: actor.role };
}
