import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { settledInFakeTime } from '../../test/support/fake-time.js';
import { BatchWriter } from './batch-writer.js';
import { ORPHAN_SCAN_MS, SpillDirectory, parseSpillName, type Adoption } from './spill-directory.js';

let directory: string;
const opened: SpillDirectory[] = [];
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'switchyard-spill-directory-'));
});
afterEach(() => {
  vi.useRealTimers();
  for (const spill of opened.splice(0)) spill.close();
  rmSync(directory, { recursive: true, force: true });
});

/** A gateway process's spill files in the test's directory; every adoption it makes is kept in `adoptions`. */
function processSpill(instanceId: string, prefix = 'switchyard') {
  const adoptions: Adoption[] = [];
  const spill = new SpillDirectory({ directory, prefix }, { instanceId, onAdopted: (adoption) => adoptions.push(adoption) });
  opened.push(spill);
  return { spill, records: spill.file<{ id: number }>('records'), spend: spill.file<{ id: number }>('spend'), adoptions };
}

/** What a process killed mid-outage leaves: its lock file (free: nobody holds it) and its files. */
function crashedProcess(owner: string, files: Record<string, number[]>): void {
  writeFileSync(join(directory, `switchyard.spill.${owner}.lock`), '');
  for (const [suffix, ids] of Object.entries(files)) writeFileSync(join(directory, `switchyard.${suffix}`), ids.map((id) => `{"id":${id}}\n`).join(''));
}

const files = () => readdirSync(directory).sort();

describe('SpillDirectory', () => {
  it("spills into files named for its process, under a lock taken before the first, and never adopts a live process's files", () => {
    const first = processSpill('first');
    const second = processSpill('second');
    expect(files()).toEqual([]);
    first.records.append([{ id: 1 }]);
    second.spend.append([{ id: 2 }]);
    expect(files()).toEqual([
      'switchyard.spill-records.first.jsonl',
      'switchyard.spill-spend.second.jsonl',
      'switchyard.spill.first.lock',
      'switchyard.spill.second.lock',
    ]);
    expect(first.spill.adoptOrphans({ sweepLocks: true }).owners).toEqual([]);
    expect(second.spill.adoptOrphans({ sweepLocks: true }).owners).toEqual([]);
    expect([first.records.count, second.spend.count]).toEqual([1, 1]);
  });

  it("a crashed process's files (its lock left behind, free) are adopted whole by exactly one of the processes looking, and its lock goes", () => {
    crashedProcess('crashed', {
      'spill-records.crashed.replay-1.jsonl': [1, 2],
      'spill-records.crashed.jsonl': [3],
      'spill-spend.crashed.jsonl': [1, 2, 3],
    });
    const first = processSpill('first');
    const second = processSpill('second');
    expect(first.spill.adoptOrphans()).toEqual({ owners: ['crashed'], items: { records: 3, spend: 3, audit: 0 } });
    expect(second.spill.adoptOrphans()).toEqual({ owners: [], items: { records: 0, spend: 0, audit: 0 } });
    expect(files()).toEqual([
      'switchyard.spill-records.first.replay-1.jsonl',
      'switchyard.spill-records.first.replay-2.jsonl',
      'switchyard.spill-spend.first.replay-3.jsonl',
      'switchyard.spill.first.lock',
    ]);
    // Oldest first: the crashed process's claimed file before the one it was appending to.
    expect(first.records.claim()).toEqual([{ id: 1 }, { id: 2 }]);
    first.records.release();
    expect(first.records.claim()).toEqual([{ id: 3 }]);
    expect(first.adoptions).toEqual([{ owners: ['crashed'], items: { records: 3, spend: 3, audit: 0 } }]);
  });

  it('the files of a process stopped while the store refused writes (no lock left) and unnamed ones from an earlier version are adopted', () => {
    const stopped = processSpill('stopped');
    stopped.records.append([{ id: 1 }]);
    stopped.spill.close();
    writeFileSync(join(directory, 'switchyard.spill-spend.jsonl.replaying'), '{"id":2}\n');
    writeFileSync(join(directory, 'switchyard.spill-spend.jsonl'), '{"id":3}\n');
    const next = processSpill('next');
    expect(next.spill.adoptOrphans()).toEqual({ owners: ['stopped', 'an earlier version'], items: { records: 1, spend: 2, audit: 0 } });
    expect(next.spend.claim()).toEqual([{ id: 2 }]);
    next.spend.release();
    expect(next.spend.claim()).toEqual([{ id: 3 }]);
  });

  it('the lock a crashed process left with no files is swept at start only; a live one is never touched', () => {
    crashedProcess('crashed', {});
    const live = processSpill('live');
    live.records.append([{ id: 1 }]);
    const looking = processSpill('looking');
    looking.spill.adoptOrphans();
    expect(files()).toContain('switchyard.spill.crashed.lock');
    expect(looking.spill.adoptOrphans({ sweepLocks: true }).owners).toEqual([]);
    expect(files()).toEqual(['switchyard.spill-records.live.jsonl', 'switchyard.spill.live.lock']);
  });

  it('the watch adopts what a process left within one scan, and its writer replays it with no traffic', async () => {
    vi.useFakeTimers();
    const stored: number[] = [];
    const live = processSpill('live');
    const writer = new BatchWriter<{ id: number }>({
      name: 'TestWriter',
      itemName: 'item',
      flushIntervalMs: 100,
      onError: () => undefined,
      writeBatch: async (batch) => void stored.push(...batch.map((item) => item.id)),
      spill: live.records,
    });
    live.spill.watchForOrphans();
    crashedProcess('crashed', { 'spill-records.crashed.jsonl': [7, 8] });
    await vi.advanceTimersByTimeAsync(ORPHAN_SCAN_MS + 100);
    expect(stored).toEqual([7, 8]);
    expect(files()).toEqual(['switchyard.spill.live.lock']);
    await writer.close();
  });

  it('a look that fails (the directory is not one) is reported, not thrown: the process goes on', () => {
    const notADirectory = join(directory, 'a-file');
    writeFileSync(notADirectory, '');
    const errors: unknown[] = [];
    const spill = new SpillDirectory({ directory: notADirectory, prefix: 'switchyard' }, { instanceId: 'a', onError: (error) => errors.push(error) });
    opened.push(spill);
    spill.watchForOrphans();
    spill.adoptOrphansBeforeReplay();
    expect(errors.map((error) => (error as NodeJS.ErrnoException).code)).toEqual(['ENOTDIR', 'ENOTDIR']);
  });

  it('names: locks, appended and replay files, unnamed ones from an earlier version, and nothing else', () => {
    expect(parseSpillName('switchyard.spill.web-1-4242-a1b2c3.lock', 'switchyard')).toEqual({ owner: 'web-1-4242-a1b2c3', lock: true });
    expect(parseSpillName('switchyard.spill-spend.web-1.jsonl', 'switchyard')).toMatchObject({ owner: 'web-1', kind: 'spend' });
    expect(parseSpillName('switchyard.spill-records.web-1.replay-12.jsonl', 'switchyard')).toMatchObject({ owner: 'web-1', kind: 'records', order: 12 });
    expect(parseSpillName('switchyard.db.spill-records.jsonl.replaying', 'switchyard.db')).toMatchObject({ owner: '', kind: 'records', order: 0 });
    for (const other of ['switchyard.db', 'switchyard.spill.x.lock.new', 'switchyard.spill-records.a.b.jsonl', 'switchyard.db.spill-records.x.jsonl', 'other.spill.x.lock']) {
      expect(parseSpillName(other, 'switchyard')).toBeUndefined();
    }
  });
});

describe('Processes sharing one spill directory', () => {
  it('whatever the order of outages, slow writes, flushes, ticks and restarts across processes, every item is stored and no file is left', async () => {
    const step = fc.oneof(
      fc.record({ op: fc.constant('enqueue' as const), process: fc.nat(2), count: fc.integer({ min: 1, max: 5 }) }),
      fc.record({ op: fc.constant('store' as const), failing: fc.boolean(), slow: fc.boolean() }),
      fc.record({ op: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 1_500 }) }),
      fc.record({ op: fc.constant('flush' as const), process: fc.nat(2) }),
      fc.record({ op: fc.constant('restart' as const), process: fc.nat(2) }),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        vi.useFakeTimers();
        const prefix = `run-${run++}`;
        const stored = new Set<number>();
        let failing = false;
        let slow = false;
        const writeBatch = async (batch: readonly { id: number }[]) => {
          if (slow) await new Promise((resolve) => setTimeout(resolve, 150));
          if (failing) throw new Error('store down (on purpose)');
          for (const item of batch) stored.add(item.id);
        };
        let generation = 0;
        /** A gateway starting in the shared directory: it adopts what gone ones left, and watches for more. */
        const start = () => {
          const spill = new SpillDirectory({ directory, prefix }, { instanceId: `p${generation++}` });
          const writer = new BatchWriter<{ id: number }>({ name: 'TestWriter', itemName: 'item', batchSize: 4, flushIntervalMs: 100, onError: () => undefined, writeBatch, spill: spill.file('records') });
          spill.watchForOrphans();
          return { spill, writer };
        };
        const stop = async (gateway: ReturnType<typeof start>) => {
          expect(await settledInFakeTime(gateway.writer.close().catch(() => undefined))).toBe(true);
          gateway.spill.close();
        };
        const gateways = [start(), start(), start()];
        const pending: Promise<void>[] = [];
        let nextId = 1;
        try {
          for (const action of steps) {
            if (action.op === 'enqueue') for (let index = 0; index < action.count; index++) gateways[action.process]!.writer.enqueue({ id: nextId++ });
            else if (action.op === 'store') [failing, slow] = [action.failing, action.slow];
            else if (action.op === 'tick') await vi.advanceTimersByTimeAsync(action.ms);
            else if (action.op === 'flush') pending.push(gateways[action.process]!.writer.flush().catch(() => undefined));
            else {
              await stop(gateways[action.process]!);
              gateways[action.process] = start();
            }
            await vi.advanceTimersByTimeAsync(0);
          }
          [failing, slow] = [false, false];
          expect(await settledInFakeTime(Promise.all(pending))).toBe(true);
          // Within a few backed-off retries (4 s at most) and scans, every process has replayed what it holds.
          await vi.advanceTimersByTimeAsync(10_000);
          for (const gateway of gateways) await stop(gateway);
          expect([...stored].sort((a, b) => a - b)).toEqual(Array.from({ length: nextId - 1 }, (_, index) => index + 1));
          expect(readdirSync(directory).filter((name) => name.startsWith(prefix))).toEqual([]);
        } finally {
          vi.useRealTimers();
          for (const gateway of gateways) gateway.spill.close();
        }
      }),
      { numRuns: 1500 },
    );
  });
});
