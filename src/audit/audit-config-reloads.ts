import { configChanges } from '../config/config-changes.js';
import type { ConfigSource } from '../config/config-source.js';
import { SYSTEM_CONTEXT, type AuditTrail } from './audit-trail.js';

/**
 * Appends a `config.reload` row, by the gateway itself, for every accepted reload that changed
 * something: `before` and `after` hold the changed paths with their values, a secret-bearing one
 * by its path only (config/config-changes.ts). A rejected reload changes nothing and is no row (it
 * is logged); neither is a file saved unchanged.
 */
export function auditConfigReloads(configSource: Pick<ConfigSource, 'current' | 'file' | 'subscribe'>, audit: Pick<AuditTrail, 'event'>): void {
  let inForce = configSource.current;
  configSource.subscribe((change) => {
    if (change.event !== 'reloaded') return;
    const changes = configChanges(inForce, change.config);
    inForce = change.config;
    if (!changes) return;
    void audit.event(SYSTEM_CONTEXT, { action: 'config.reload', target: { kind: 'config', id: configSource.file }, ...changes });
  });
}
