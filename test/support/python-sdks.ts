/**
 * The Python SDK client tests' interpreter: the virtual environment `.ci/python-sdks` makes from
 * test/python-sdks/requirements.txt (docs/testing.md). Under `CI=true` a missing or stale one
 * fails the run; elsewhere the tests that need it skip, loudly, so `npm test` still passes on a
 * machine without it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { PROCESS_START_TIMEOUT_MS } from './cli-process.js';
import { describeRun, runOffline } from './offline-cli.js';

const CASES_DIRECTORY = join(process.cwd(), 'test', 'python-sdks');
const VENV = process.env.SWITCHYARD_PYTHON_SDKS ?? join(homedir(), '.cache', 'switchyard-python-sdks');

/** The venv's interpreter, or undefined (said loudly) when this machine has none made from the current pins. */
export function pythonSdksInterpreter(): string | undefined {
  const problem = venvProblem();
  if (problem === undefined) return join(VENV, 'bin', 'python');
  const message = `${problem}: run \`bash .ci/python-sdks\` to run the Python SDK tests`;
  if (process.env.CI === 'true') throw new Error(`${message}. CI must run them.`);
  console.warn(`\n*** SKIPPING: ${message}. ***\n`);
  return undefined;
}

function venvProblem(): string | undefined {
  const madeFrom = join(VENV, 'requirements.txt');
  if (!existsSync(join(VENV, 'bin', 'python')) || !existsSync(madeFrom)) return `no virtual environment with the Python SDKs at ${VENV}`;
  if (readFileSync(madeFrom, 'utf8') !== readFileSync(join(CASES_DIRECTORY, 'requirements.txt'), 'utf8')) {
    return `the virtual environment at ${VENV} was made from other pins than test/python-sdks/requirements.txt`;
  }
  return undefined;
}

export interface PythonCasesRun {
  /** What the SDK got in each case (or `{error}`: what it raised), by the case's name. */
  results: Record<string, unknown>;
  /** Connections the SDK tried to open to anywhere but the gateway, refused (see `runOffline`). */
  outsideConnections: string[];
}

/** Runs one group of cases, a script in test/python-sdks/, in one Python process against the gateway at `gatewayUrl`. */
export async function runPythonCases(python: string, script: string, gatewayUrl: string): Promise<PythonCasesRun> {
  const run = await runOffline({
    command: python,
    args: [join(CASES_DIRECTORY, script), gatewayUrl],
    cwd: CASES_DIRECTORY,
    env: { PATH: process.env.PATH, PYTHONDONTWRITEBYTECODE: '1' },
    timeoutMs: PROCESS_START_TIMEOUT_MS,
  });
  if (run.exitCode !== 0) throw new Error(describeRun(`python ${script}`, run, PROCESS_START_TIMEOUT_MS));
  return { results: JSON.parse(run.stdout) as Record<string, unknown>, outsideConnections: run.outsideConnections };
}
