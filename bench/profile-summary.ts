import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTable } from '../src/cli/format-table.js';

/** The parts of a V8 `.cpuprofile` (as written by `node --cpu-prof`) that self time needs. */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface HotFunction {
  name: string;
  location: string;
  selfMs: number;
  /** Share of the busy time: all samples except `(idle)`. */
  selfShare: number;
}

/**
 * The functions with the most self time (time on the top of the stack), merged across call
 * sites. `(idle)` is left out, so the shares are of the time the process was actually busy.
 */
export function hottestFunctions(profileFile: string, limit: number): HotFunction[] {
  const profile = readProfile(profileFile);
  const nodesById = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUsByKey = new Map<string, { node: ProfileNode; selfUs: number }>();
  let busyUs = 0;
  profile.samples.forEach((nodeId, index) => {
    const node = nodesById.get(nodeId);
    // timeDeltas[i] is the time since the previous sample: the best estimate of sample i's length.
    const deltaUs = Math.max(0, profile.timeDeltas[index] ?? 0);
    if (!node || node.callFrame.functionName === '(idle)') return;
    busyUs += deltaUs;
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName}\n${url}\n${lineNumber}`;
    const entry = selfUsByKey.get(key);
    if (entry) entry.selfUs += deltaUs;
    else selfUsByKey.set(key, { node, selfUs: deltaUs });
  });
  return [...selfUsByKey.values()]
    .sort((left, right) => right.selfUs - left.selfUs)
    .slice(0, limit)
    .map(({ node, selfUs }) => ({
      name: node.callFrame.functionName || '(anonymous)',
      location: shortLocation(node.callFrame.url, node.callFrame.lineNumber),
      selfMs: selfUs / 1000,
      selfShare: busyUs === 0 ? 0 : selfUs / busyUs,
    }));
}

export function hotFunctionTable(functions: readonly HotFunction[]): string {
  return formatTable(
    ['self ms', 'self %', 'function', 'where'],
    functions.map((hot) => [hot.selfMs.toFixed(0), `${(hot.selfShare * 100).toFixed(1)}%`, hot.name, hot.location]),
  );
}

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

/** A profile's script URL and 0-based line as a path from the repository root and a 1-based line. */
export function shortLocation(url: string, lineNumber: number): string {
  if (url === '') return '(native/VM)';
  const path = url.startsWith('file://') ? relative(repositoryRoot, fileURLToPath(url)) : url;
  // V8 line numbers are 0-based.
  return `${path}:${lineNumber + 1}`;
}

function readProfile(file: string): CpuProfile {
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    !('nodes' in parsed && Array.isArray(parsed.nodes)) ||
    !('samples' in parsed && Array.isArray(parsed.samples)) ||
    !('timeDeltas' in parsed && Array.isArray(parsed.timeDeltas))
  ) {
    throw new Error(`${file} is not a V8 CPU profile`);
  }
  // Written by V8 itself, so the shape past the top level is trusted.
  return parsed as CpuProfile;
}
