/**
 * `npm run bench:alloc`: bytes the gateway allocates per request, and where. `switchyard serve`
 * runs as an operator runs it (bench/child-server.ts) with the inspector open on a loopback port;
 * this process drives V8's sampling heap profiler over it, keeping the objects minor and major GCs
 * collected (a request's garbage is almost all young, and a plain sampling profile would drop
 * it), while it sends keyed chat completions to the external mock one after another. Prints the
 * total per request and the call frames with the most self bytes, per variant (non-streaming,
 * streaming). The store thread is an isolate of its own and is not in the figure.
 *
 *   npm run bench:alloc -- [--requests 5000] [--warm 500] [--interval 256] [--top 25] [--only non-streaming|streaming] [--no-inlining] [--cli PATH]
 *
 * `--cli`: another build's `dist/src/cli/main.js` (a baseline), measured the same way.
 *
 * A sample is charged to the physical frame, so a function the optimizer inlined is charged to
 * its caller. `--no-inlining` runs the gateway with TurboFan's inlining off, which puts every
 * byte on the function that allocated it; its total is higher (escape analysis, which works on
 * inlined code, removes fewer objects), so it is for finding sites, not for the figure.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatTable } from '../src/cli/format-table.js';
import { freePort } from '../test/support/free-port.js';
import { createBenchKey } from './bench-key.js';
import { boundedNumber } from './bounded-number.js';
import { startChildServer, startServeCli, stopAllChildServers } from './child-server.js';
import { writeGatewayConfig } from './gateway-config.js';
import { InspectorSession } from './inspector-session.js';
import { shortLocation } from './profile-summary.js';
import { chatPath, requestBody, type Answer } from './scenarios.js';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

interface Variant {
  name: 'non-streaming' | 'streaming';
  stream: boolean;
}

const variants: readonly Variant[] = [
  { name: 'non-streaming', stream: false },
  { name: 'streaming', stream: true },
];

// The bench's 64-piece answer, as the throughput mode's non-streaming and streaming-64 runs.
const answer: Answer = { chunks: 64, chunkMs: 0 };

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '5000' },
    warm: { type: 'string', default: '500' },
    interval: { type: 'string', default: '256' },
    top: { type: 'string', default: '25' },
    only: { type: 'string' },
    'no-inlining': { type: 'boolean', default: false },
    cli: { type: 'string' },
  },
});
const requests = boundedNumber('--requests', values.requests, 1, 1_000_000, true);
const warm = boundedNumber('--warm', values.warm, 0, 1_000_000, true);
const samplingInterval = boundedNumber('--interval', values.interval, 1, 1 << 20, true);
const top = boundedNumber('--top', values.top, 1, 500, true);
const chosen = variants.filter((variant) => values.only === undefined || variant.name === values.only);
if (chosen.length === 0) throw new Error(`--only: one of ${variants.map((variant) => variant.name).join(', ')}`);

let removeConfig: (() => void) | undefined;
try {
  const mock = await startChildServer('mock', 'mock-server.js');
  const config = writeGatewayConfig({ mockUrl: mock.url, answers: [answer] });
  removeConfig = config.remove;
  const inspectorPort = await freePort();
  const cli = values.cli ?? fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
  const gateway = await startServeCli('gateway', cli, config.file, {
    nodeFlags: [`--inspect=127.0.0.1:${inspectorPort}`, ...(values['no-inlining'] ? ['--no-turbo-inlining'] : [])],
  });
  const key = await createBenchKey(gateway.url);
  const inspector = await InspectorSession.connect(inspectorPort);
  for (const variant of chosen) {
    const body = requestBody('gateway', answer, variant.stream);
    await sendRequests(gateway.url, key, body, warm);
    await inspector.call('HeapProfiler.collectGarbage');
    await inspector.call('HeapProfiler.startSampling', {
      samplingInterval,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    await sendRequests(gateway.url, key, body, requests);
    const { profile } = (await inspector.call('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } };
    report(variant, profile.head);
  }
  inspector.close();
} finally {
  await stopAllChildServers();
  // After the gateway has stopped: its store is in the config's directory.
  removeConfig?.();
}

async function sendRequests(gatewayUrl: string, key: string, body: string, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const response = await fetch(`${gatewayUrl}${chatPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body,
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`the gateway answered ${response.status}: ${text.slice(0, 300)}`);
  }
}

function report(variant: Variant, head: ProfileNode): void {
  const bytesBySite = new Map<string, { name: string; where: string; bytes: number }>();
  let total = 0;
  // A builtin's bytes (an array's push, a regex's exec) are put on the script frame that called it:
  // "push" alone says nothing of which request step allocated.
  const visit = (node: ProfileNode, caller: ProfileNode['callFrame'] | undefined): void => {
    total += node.selfSize;
    const { functionName, url, lineNumber } = node.callFrame;
    const native = url === '' && caller !== undefined;
    const name = native ? `${functionName || '(native)'} in ${caller.functionName || '(anonymous)'}` : functionName || '(anonymous)';
    const where = native ? shortLocation(caller.url, caller.lineNumber) : shortLocation(url, lineNumber);
    const siteKey = `${name}\n${where}`;
    const entry = bytesBySite.get(siteKey);
    if (entry) entry.bytes += node.selfSize;
    else bytesBySite.set(siteKey, { name, where, bytes: node.selfSize });
    const nextCaller = url === '' ? caller : node.callFrame;
    for (const child of node.children) visit(child, nextCaller);
  };
  visit(head, undefined);
  const sites = [...bytesBySite.values()].sort((left, right) => right.bytes - left.bytes).slice(0, top);
  console.log(`\n${variant.name}: ${(total / requests / 1024).toFixed(1)} KB allocated per request (${requests} requests, sampled every ${samplingInterval} bytes)`);
  console.log(formatTable(['KB/req', 'function', 'where'], sites.map(({ name, where, bytes }) => [(bytes / requests / 1024).toFixed(2), name, where])));
}
