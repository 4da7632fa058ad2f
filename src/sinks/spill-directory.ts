import { randomBytes } from 'node:crypto';
import { readdirSync, renameSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { holdLock, takeLockIfFree, type HeldLock } from './process-lock.js';
import { SpillFile, type SpillFileHome, type SpillKind } from './spill-file.js';

/** Where spill files go: a directory, and the start of their names (`<prefix>.spill-…`). */
export interface SpillLocation {
  directory: string;
  prefix: string;
}

/** Files of processes that are gone, taken over by this one. */
export interface Adoption {
  /** The instance ids of the processes whose files were adopted (`an earlier version` for unnamed files). */
  owners: string[];
  /** Items adopted, by kind. */
  items: Record<SpillKind, number>;
}

export interface SpillDirectoryOptions {
  /** After files of gone processes were adopted (at start, before a replay, or found by the watch). */
  onAdopted?: (adoption: Adoption) => void;
  /** A look for files of gone processes that failed (an unreadable directory, say); the next one tries again. */
  onError?: (error: unknown) => void;
  /** This process's name in its files (default: host, pid and a random part); tests set it. */
  instanceId?: string;
}

/** How often a running gateway looks for files of processes that are gone, traffic or not. */
export const ORPHAN_SCAN_MS = 1_000;

/** Unnamed spill files, from a version before spill files were named for their process: nobody holds them. */
const UNNAMED_OWNER = '';

/**
 * One gateway process's spill files in a directory other processes may share (replicas started in
 * one working directory, pods mounting one volume): each process spills into files named with its
 * instance id (`<prefix>.spill-records.<id>.jsonl`, `…spill-spend…`, `…spill-audit…`), and holds a lock
 * (`<prefix>.spill.<id>.lock`, see process-lock.ts) from before its first spill file is made until
 * it stops. It never touches another live process's files. Files whose owner is gone — its lock
 * free (a crash, SIGKILL) or removed (a graceful stop that could not write them) — are adopted
 * whole: renamed, one file at a time, to names of this process, so each is replayed by exactly
 * one process (a rename happens once), and counted here from then on.
 */
export class SpillDirectory implements SpillFileHome {
  readonly instanceId: string;
  readonly #location: SpillLocation;
  readonly #options: SpillDirectoryOptions;
  readonly #files = new Map<SpillKind, SpillFile<unknown>>();
  #lock: HeldLock | undefined;
  #nextReplay = 1;
  #watch: NodeJS.Timeout | undefined;

  constructor(location: SpillLocation, options: SpillDirectoryOptions = {}) {
    this.#location = location;
    this.#options = options;
    this.instanceId = options.instanceId ?? newInstanceId();
  }

  /** This process's spill file of `kind` (one per kind). */
  file<T>(kind: SpillKind): SpillFile<T> {
    let file = this.#files.get(kind);
    if (!file) this.#files.set(kind, (file = new SpillFile<unknown>(kind, this)));
    return file as SpillFile<T>;
  }

  appendPathOf(kind: SpillKind): string {
    return this.#path(`spill-${kind}.${this.instanceId}.jsonl`);
  }

  nextReplayPathOf(kind: SpillKind): string {
    return this.#path(`spill-${kind}.${this.instanceId}.replay-${this.#nextReplay++}.jsonl`);
  }

  holdLock(): void {
    this.#lock ??= holdLock(this.#lockPathOf(this.instanceId));
  }

  /**
   * Adopts the files of every process that is gone into this process's files of their kinds.
   * `sweepLocks` (at start) also removes the locks that crashed processes left with no files.
   */
  adoptOrphans(options: { sweepLocks?: boolean } = {}): Adoption {
    const adoption: Adoption = { owners: [], items: { records: 0, spend: 0, audit: 0 } };
    for (const [owner, found] of this.#othersFiles()) {
      if (found.data.length === 0 && !options.sweepLocks) continue;
      const lock = found.locked ? takeLockIfFree(this.#lockPathOf(owner)) : 'absent';
      if (lock === 'held') continue;
      try {
        if (this.#adoptFiles(found.data, adoption)) adoption.owners.push(owner === UNNAMED_OWNER ? 'an earlier version' : owner);
      } finally {
        if (lock !== 'absent') lock.release();
      }
    }
    if (adoption.owners.length > 0) {
      for (const file of this.#files.values()) if (adoption.items[file.kind] > 0) file.adopted();
      this.#options.onAdopted?.(adoption);
    }
    return adoption;
  }

  adoptOrphansBeforeReplay(): void {
    this.#adoptReportingErrors({});
  }

  /**
   * Adopts what gone processes left (sweeping the locks crashed ones left with no files), then
   * looks again every `ORPHAN_SCAN_MS`, so their files are replayed even when this process has
   * nothing of its own to replay. A look that fails is reported, never thrown: the gateway serves on.
   */
  watchForOrphans(): void {
    if (this.#watch) return;
    this.#adoptReportingErrors({ sweepLocks: true });
    this.#watch = setInterval(() => this.#adoptReportingErrors({}), ORPHAN_SCAN_MS);
    this.#watch.unref();
  }

  #adoptReportingErrors(options: { sweepLocks?: boolean }): void {
    try {
      this.adoptOrphans(options);
    } catch (error) {
      this.#options.onError?.(error);
    }
  }

  /**
   * Stops the watch and lets the lock go (after the writers closed): files still here wait for
   * the next process to start in this directory, or for a running one to adopt them.
   */
  close(): void {
    clearInterval(this.#watch);
    this.#watch = undefined;
    this.#lock?.release();
    this.#lock = undefined;
  }

  /** Renames each file into this process's names (skipping one another process took first); whether any was adopted. */
  #adoptFiles(files: readonly OrphanFile[], adoption: Adoption): boolean {
    let adoptedAny = false;
    for (const orphan of files) {
      const file = this.#files.get(orphan.kind);
      if (!file) continue;
      // Adopted files are this process's: its lock must cover them before they carry its name.
      this.holdLock();
      const path = this.nextReplayPathOf(orphan.kind);
      try {
        renameSync(join(this.#location.directory, orphan.name), path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      adoption.items[orphan.kind] += file.adopt(path);
      adoptedAny = true;
    }
    return adoptedAny;
  }

  /** Other processes' spill files and locks here, by owner; each owner's files oldest first. */
  #othersFiles(): Map<string, { data: OrphanFile[]; locked: boolean }> {
    const owners = new Map<string, { data: OrphanFile[]; locked: boolean }>();
    const ownerOf = (owner: string) => {
      let found = owners.get(owner);
      if (!found) owners.set(owner, (found = { data: [], locked: false }));
      return found;
    };
    for (const name of namesIn(this.#location.directory)) {
      const parsed = parseSpillName(name, this.#location.prefix);
      if (!parsed || parsed.owner === this.instanceId) continue;
      if (parsed.lock) ownerOf(parsed.owner).locked = true;
      else ownerOf(parsed.owner).data.push({ name, kind: parsed.kind, order: parsed.order });
    }
    for (const found of owners.values()) found.data.sort((a, b) => a.order - b.order);
    return owners;
  }

  #lockPathOf(owner: string): string {
    return this.#path(`spill.${owner}.lock`);
  }

  #path(suffix: string): string {
    return join(this.#location.directory, `${this.#location.prefix}.${suffix}`);
  }
}

interface OrphanFile {
  name: string;
  kind: SpillKind;
  /** Replay files first, in the order they were made; the file being appended to last. */
  order: number;
}

type SpillName = { owner: string; lock: true } | { owner: string; lock: false; kind: SpillKind; order: number };

/**
 * What a file in the spill directory is: a lock (`<prefix>.spill.<id>.lock`), a file being
 * appended to (`<prefix>.spill-<kind>.<id>.jsonl`), a replay file (`….<id>.replay-<n>.jsonl`), an
 * unnamed one from an earlier version (`<prefix>.spill-<kind>.jsonl[.replaying]`), or none of these.
 */
export function parseSpillName(name: string, prefix: string): SpillName | undefined {
  if (!name.startsWith(`${prefix}.spill`)) return undefined;
  const rest = name.slice(prefix.length + '.spill'.length);
  const lock = /^\.([A-Za-z0-9-]+)\.lock$/.exec(rest);
  if (lock) return { owner: lock[1]!, lock: true };
  const data = /^-(records|spend|audit)\.(?:([A-Za-z0-9-]+)\.(?:replay-(\d+)\.)?jsonl|jsonl(\.replaying)?)$/.exec(rest);
  if (!data) return undefined;
  const kind = data[1] as SpillKind;
  if (data[2] !== undefined) return { owner: data[2], lock: false, kind, order: data[3] === undefined ? Number.MAX_SAFE_INTEGER : Number(data[3]) };
  return { owner: UNNAMED_OWNER, lock: false, kind, order: data[4] === undefined ? 1 : 0 };
}

/** Host, pid and a random part: unique among processes sharing a volume (pods all run as pid 1), and readable in a listing. */
function newInstanceId(): string {
  const host = hostname().replace(/[^A-Za-z0-9-]/g, '-').slice(0, 40) || 'host';
  return `${host}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

function namesIn(directory: string): string[] {
  try {
    return readdirSync(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
