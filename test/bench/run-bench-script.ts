import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface BenchScriptResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a built bench script (`npm run build` first) to its end, killed past `timeoutMs`, as `npm run bench:*` runs it. */
export function runBenchScript(script: string, args: readonly string[], timeoutMs: number): Promise<BenchScriptResult> {
  const child = spawn(process.execPath, [join(process.cwd(), 'dist', 'bench', script), ...args], {
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `text` as a regular expression that matches it literally, for a row of a printed table. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
