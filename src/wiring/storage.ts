import type { Logger } from 'pino';
import { AuditTrail } from '../audit/audit-trail.js';
import { pruneAudit } from '../audit/prune-audit.js';
import type { Config } from '../config/schema.js';
import { knownSecrets } from '../config/known-secrets.js';
import { StoredResponses } from '../conversations/stored-responses.js';
import type { AuditEntry } from '../core/audit-entry.js';
import type { RequestRecord } from '../core/request-record.js';
import type { SpendRow } from '../core/spend-row.js';
import { LedgerWriter } from '../ledger/ledger-writer.js';
import { SpendAccounting } from '../ledger/spend-accounting.js';
import { DEFAULT_RECENT_LIMIT } from '../records/recent-records.js';
import { RecordStore } from '../records/record-store.js';
import { SpillDirectory, type SpillLocation } from '../sinks/spill-directory.js';
import { openConfiguredStore, spillLocationOf, type AppStore } from '../store/open-configured-store.js';
import { RecordPruner } from '../store/record-pruner.js';
import type { Metrics, SinkCounts } from '../telemetry/metrics.js';

/** Everything the gateway keeps: the store, the writers in front of it, and the pruners behind it. */
export interface Storage extends AppStore {
  records: RecordStore;
  ledger: LedgerWriter;
  spendAccounting: SpendAccounting;
  storedResponses: StoredResponses;
  /** Deletes records past `store.retention_days` in the background. */
  pruner: RecordPruner;
  /** Deletes stored Responses API answers past `responses.retention_days` in the background. */
  responsesPruner: RecordPruner;
  /** Deletes the oldest audit rows past `audit.retention_days` in the background (audit/prune-audit.ts). */
  auditPruner: RecordPruner;
  sinkCounts: SinkCounts;
  /** The audit trail, written in the store beside the changes it records; its events spill like records. */
  audit: AuditTrail;
  /** Writes what the records and spend writers hold. */
  flush(): Promise<void>;
  /** Stops the pruners, writes every pending record, spend row and audit event, and closes the store. */
  close(): Promise<void>;
}

export interface StorageDeps {
  config: () => Config;
  logger: Logger;
  metrics: Metrics;
  /** The store, already migrated, instead of the one the config names (tests make it fail on purpose). */
  store?: AppStore;
}

/** Opens the configured store (chosen at start: a reload that changes it takes effect on restart) and starts its pruners. */
export async function openStorage(deps: StorageDeps): Promise<Storage> {
  const { config, logger, metrics } = deps;
  const storeConfig = config().store;
  const { db, writes } = deps.store ?? (await openConfiguredStore(storeConfig, logger));
  const spillLocation = spillLocationOf(storeConfig);
  const spill = spillLocation && openSpillDirectory(spillLocation, { logger, metrics });
  const ledger = new LedgerWriter({
    insert: (rows) => writes.spend(rows),
    onError: (error) => logger.error({ err: error }, 'writing spend rows failed; will retry'),
    ...(spill ? { spill: spill.file<SpendRow>('spend') } : {}),
  });
  const records = new RecordStore({
    db,
    // A `:memory:` store keeps at most max_records; the readable-before-written cache is no bigger.
    ...(storeConfig.kind === 'sqlite' && spill === undefined ? { recentLimit: Math.min(DEFAULT_RECENT_LIMIT, storeConfig.max_records) } : {}),
    knownSecrets: () => knownSecrets(config()),
    writer: {
      insert: (batch) => writes.records(batch),
      onError: (error) => logger.error({ err: error }, 'writing request records failed; will retry'),
      ...(spill ? { spill: spill.file<RequestRecord>('records') } : {}),
    },
  });
  const { audit, auditPruner } = openAuditTrail({ db, writes, logger, spill, retentionDays: config().audit.retention_days });
  // The writers listen for adopted files: what gone processes left here is replayed from now on.
  spill?.watchForOrphans();
  const pruner = new RecordPruner({
    prune: (pruneOptions) => writes.pruneRecords(pruneOptions),
    retentionDays: storeConfig.retention_days,
    onPruned: (count) => metrics.recordsPruned.inc(count),
    onError: (error) => logger.warn({ err: error }, 'pruning old request records failed; will retry'),
  });
  const storedResponses = new StoredResponses(db);
  const responsesPruner = new RecordPruner({
    prune: (pruneOptions) => storedResponses.prune(pruneOptions),
    retentionDays: config().responses.retention_days,
    onError: (error) => logger.warn({ err: error }, 'pruning old stored responses failed; will retry'),
  });
  pruner.start();
  responsesPruner.start();
  auditPruner.start();
  return {
    db,
    writes,
    records,
    ledger,
    spendAccounting: new SpendAccounting({ ledger, metrics }),
    audit,
    storedResponses,
    pruner,
    responsesPruner,
    auditPruner,
    sinkCounts: {
      spilled: () => ({ records: records.writer.spilledCount, spend: ledger.spilledCount, audit: audit.spilledCount }),
      dropped: () => ({ records: records.writer.droppedCount, spend: ledger.droppedCount, audit: audit.droppedCount }),
    },
    flush: () => Promise.all([records.flush(), ledger.flush()]).then(() => undefined),
    async close() {
      try {
        await pruner.stop();
        await responsesPruner.stop();
        await auditPruner.stop();
        await records.close();
        await ledger.close();
        await audit.close();
        spill?.close();
      } finally {
        await writes.close();
        await db.destroy();
      }
    },
  };
}

/**
 * The audit trail's writer, its events spilling beside records while the store is out, and the
 * pruner of its oldest rows (not started).
 */
function openAuditTrail(deps: AppStore & { logger: Logger; spill: SpillDirectory | undefined; retentionDays: number }): { audit: AuditTrail; auditPruner: RecordPruner } {
  const { db, writes, logger, spill } = deps;
  const audit = new AuditTrail(writes, {
    onError: (error) => logger.error({ err: error }, 'writing audit events failed; will retry'),
    ...(spill ? { spill: spill.file<AuditEntry>('audit') } : {}),
  });
  const auditPruner = new RecordPruner({
    prune: (pruneOptions) => pruneAudit(db, pruneOptions),
    retentionDays: deps.retentionDays,
    onPruned: (count) => logger.info({ pruned: count }, `pruned ${count} audit rows older than audit.retention_days`),
    onError: (error) => logger.warn({ err: error }, 'pruning old audit rows failed; will retry'),
  });
  return { audit, auditPruner };
}

/**
 * This process's spill files, in a directory other gateways may share; what it adopts from
 * processes that are gone is logged (naming them) and counted.
 */
function openSpillDirectory(location: SpillLocation, deps: { logger: Logger; metrics: Metrics }): SpillDirectory {
  const { logger, metrics } = deps;
  const spill = new SpillDirectory(location, {
    onAdopted: ({ owners, items }) => {
      for (const kind of ['records', 'spend', 'audit'] as const) metrics.spillAdopted.inc({ kind }, items[kind]);
      logger.warn(
        { adopted: owners, records: items.records, spend: items.spend, audit: items.audit, spill_dir: location.directory },
        `adopted the spill files of ${owners.length} gateway process${owners.length === 1 ? '' : 'es'} that ${owners.length === 1 ? 'is' : 'are'} gone (${owners.join(', ')}): ${items.records} records, ${items.spend} spend rows and ${items.audit} audit events to replay`,
      );
    },
    onError: (error) => logger.error({ err: error }, 'looking for spill files of gone processes failed; will look again'),
  });
  logger.info({ spill_dir: location.directory, spill_id: spill.instanceId }, `spill files (while the store refuses writes): ${location.prefix}.spill-*.${spill.instanceId}.jsonl in ${location.directory}`);
  return spill;
}
