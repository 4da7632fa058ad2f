/**
 * The build `--baseline REF` measures against: REF checked out in a temporary git worktree,
 * given node_modules and built, then removed when the bench ends (or fails, or is interrupted).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { atCleanup } from './cleanup.js';

export interface BaselineBuild {
  /** What the tables call it: REF's short commit, or the directory's name. */
  label: string;
  /** Its built CLI, `dist/src/cli/main.js`. */
  cliPath: string;
  /** Removes what was made for it (the worktree); nothing for `--baseline-dir`. Safe to call twice. */
  remove(): void;
}

const cliInBuild = join('dist', 'src', 'cli', 'main.js');
/** npm ci's node_modules kept per package-lock, so measuring the same old lock again (a bisection) installs once. */
const moduleCacheRoot = join(tmpdir(), 'switchyard-bench-modules');
// Enough of a failed step's output to say why.
const failureTailChars = 4_000;
const stepStopWaitMs = 2_000;

/** The build step running now (git, npm ci, tsc), in a process group of its own, so an interruption can stop it and all it started. */
let runningStep: ChildProcess | undefined;

/** `--baseline-dir DIR`: a checkout that is already built; the bench leaves it as it is. */
export function existingBaseline(directory: string): BaselineBuild {
  const root = resolve(directory);
  const cliPath = join(root, cliInBuild);
  if (!existsSync(cliPath)) throw new Error(`--baseline-dir ${directory}: no ${cliInBuild} there; build it first (npm run build)`);
  return { label: basename(root), cliPath, remove: () => undefined };
}

/**
 * Checks REF out with `git worktree add --detach` in a temporary directory, links the working tree's
 * node_modules when REF's package-lock.json is the same file (else `npm ci`, cached per lock), and
 * builds the server with REF's own TypeScript (`tsc -p tsconfig.build.json`; `npm run build` when
 * REF has no such file): the dashboard's build step, which older commits lack, is not needed to serve.
 */
export async function buildBaseline(ref: string, repositoryRoot: string): Promise<BaselineBuild> {
  const commit = (await run('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], repositoryRoot, `resolving ${ref}`)).trim();
  const label = (await run('git', ['rev-parse', '--short', commit], repositoryRoot, 'naming the commit')).trim();
  const directory = mkdtempSync(join(tmpdir(), `switchyard-baseline-${label}-`));
  const remove = atCleanup(() => removeWorktree(repositoryRoot, directory));
  try {
    console.log(`baseline ${ref} = ${label}: checking it out in ${directory}`);
    await run('git', ['worktree', 'add', '--detach', directory, commit], repositoryRoot, 'git worktree add');
    await provideNodeModules(commit, label, repositoryRoot, directory);
    console.log(`baseline ${label}: building it`);
    await buildServer(directory);
    const cliPath = join(directory, cliInBuild);
    if (!existsSync(cliPath)) throw new Error(`baseline ${label}: the build left no ${cliInBuild}`);
    return { label, cliPath, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

async function provideNodeModules(commit: string, label: string, repositoryRoot: string, directory: string): Promise<void> {
  const lock = await run('git', ['show', `${commit}:package-lock.json`], repositoryRoot, "reading the baseline's package-lock.json");
  const linked = join(directory, 'node_modules');
  if (lock === readFileSync(join(repositoryRoot, 'package-lock.json'), 'utf8')) {
    console.log(`baseline ${label}: same package-lock.json as the working tree, linking its node_modules`);
    symlinkSync(realpathSync(join(repositoryRoot, 'node_modules')), linked, 'dir');
    return;
  }
  // Named node_modules itself: a package's require() looks for its dependencies in the node_modules
  // directories above its real path, so the folder they sit in must be one.
  const cached = join(moduleCacheRoot, createHash('sha256').update(lock).digest('hex').slice(0, 16), 'node_modules');
  if (!existsSync(cached)) {
    console.log(`baseline ${label}: its package-lock.json differs from the working tree's: npm ci (a minute or two; kept in ${cached} for next time)`);
    await run('npm', ['ci', '--no-audit', '--no-fund'], directory, 'npm ci');
    mkdirSync(dirname(cached), { recursive: true });
    try {
      renameSync(linked, cached);
    } catch {
      // Another bench cached the same lock meanwhile: keep ours where it is.
      return;
    }
  } else {
    console.log(`baseline ${label}: its package-lock.json differs from the working tree's; using the node_modules installed for it before (${cached})`);
  }
  symlinkSync(cached, linked, 'dir');
}

async function buildServer(directory: string): Promise<void> {
  if (!existsSync(join(directory, 'tsconfig.build.json'))) {
    await run('npm', ['run', 'build'], directory, 'npm run build');
    return;
  }
  try {
    await run(process.execPath, [join(directory, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], directory, 'tsc -p tsconfig.build.json');
  } catch (error) {
    // tsc emits despite type errors; a commit that does not type-check still runs.
    if (!existsSync(join(directory, cliInBuild))) throw error;
    console.log(`warning: the baseline has type errors; measuring what tsc emitted anyway\n${error instanceof Error ? error.message : String(error)}`);
  }
}

function removeWorktree(repositoryRoot: string, directory: string): void {
  stopRunningStep();
  const modules = join(directory, 'node_modules');
  // Unlink our link first, so no remover can ever walk into the shared node_modules it points to.
  if (existsSync(modules) && lstatSync(modules).isSymbolicLink()) unlinkSync(modules);
  rmSync(directory, { recursive: true, force: true });
  // The worktree's directory is gone; prune forgets its registration in the repository.
  spawnSync('git', ['worktree', 'prune'], { cwd: repositoryRoot, stdio: 'ignore' });
}

/**
 * Kills the running step's process group and waits until its leader is dead — synchronously, as
 * this runs in a signal handler too — so nothing writes into the directory removed next.
 */
function stopRunningStep(): void {
  const step = runningStep;
  if (step?.pid === undefined || step.exitCode !== null || step.signalCode !== null) return;
  try {
    process.kill(-step.pid, 'SIGKILL');
  } catch {
    return;
  }
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + stepStopWaitMs;
  while (Date.now() < deadline && isAlive(step.pid)) Atomics.wait(pause, 0, 0, 10);
}

/** Alive and not yet a zombie (a zombie runs nothing; the event loop reaps it later). */
function isAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Runs a command to its end and returns its stdout; rejects with the tail of its output when it fails. */
function run(command: string, args: readonly string[], cwd: string, what: string): Promise<string> {
  return new Promise<string>((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    runningStep = child;
    let stdout = '';
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      output = (output + chunk.toString()).slice(-failureTailChars);
    });
    child.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-failureTailChars)));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (runningStep === child) runningStep = undefined;
      if (code === 0) resolvePromise(stdout);
      else reject(new Error(`${what} failed (${signal ?? `exit code ${code}`}):\n${output.trim()}`));
    });
  });
}
