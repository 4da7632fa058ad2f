import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import { knownSecrets } from '../config/known-secrets.js';
import { StoredResponses } from '../conversations/stored-responses.js';
import type { RequestRecord } from '../core/request-record.js';
import type { SpendRow } from '../core/spend-row.js';
import { LedgerWriter } from '../ledger/ledger-writer.js';
import { SpendAccounting } from '../ledger/spend-accounting.js';
import { DEFAULT_RECENT_LIMIT } from '../records/recent-records.js';
import { RecordStore } from '../records/record-store.js';
import { SpillFile } from '../sinks/spill-file.js';
import { openConfiguredStore, spillPathOf, type AppStore } from '../store/open-configured-store.js';
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
  sinkCounts: SinkCounts;
  /** Writes what the records and spend writers hold. */
  flush(): Promise<void>;
  /** Stops the pruners, writes every pending record and spend row, and closes the store. */
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
  const spillPath = spillPathOf(storeConfig);
  const ledger = new LedgerWriter({
    insert: (rows) => writes.spend(rows),
    onError: (error) => logger.error({ err: error }, 'writing spend rows failed; will retry'),
    ...(spillPath ? { spill: new SpillFile<SpendRow>(`${spillPath}.spill-spend.jsonl`) } : {}),
  });
  const records = new RecordStore({
    db,
    // A `:memory:` store keeps at most max_records; the readable-before-written cache is no bigger.
    ...(storeConfig.kind === 'sqlite' && spillPath === undefined ? { recentLimit: Math.min(DEFAULT_RECENT_LIMIT, storeConfig.max_records) } : {}),
    knownSecrets: () => knownSecrets(config()),
    writer: {
      insert: (batch) => writes.records(batch),
      onError: (error) => logger.error({ err: error }, 'writing request records failed; will retry'),
      ...(spillPath ? { spill: new SpillFile<RequestRecord>(`${spillPath}.spill-records.jsonl`) } : {}),
    },
  });
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
  return {
    db,
    writes,
    records,
    ledger,
    spendAccounting: new SpendAccounting({ ledger, metrics }),
    storedResponses,
    pruner,
    responsesPruner,
    sinkCounts: {
      spilled: () => ({ records: records.writer.spilledCount, spend: ledger.spilledCount }),
      dropped: () => ({ records: records.writer.droppedCount, spend: ledger.droppedCount }),
    },
    flush: () => Promise.all([records.flush(), ledger.flush()]).then(() => undefined),
    async close() {
      try {
        await pruner.stop();
        await responsesPruner.stop();
        await records.close();
        await ledger.close();
      } finally {
        await writes.close();
        await db.destroy();
      }
    },
  };
}
