/**
 * The streams mode's load generator: N streaming requests held open at once, each on a
 * connection of its own (an undici Agent allowed N connections to the origin). The N connections
 * are opened first, by N simultaneous `GET /healthz`: thousands of new connections a second
 * overflow a Node server's accept queue (511), and the dropped handshakes are retried by TCP after
 * 1, 3, 7 s — a connection storm, timed on its own (`connectS`), rather than a cost per stream.
 * Then the streams start evenly over a ramp on those connections, so their chunks do not all
 * fall on the same millisecond. It times each stream's first byte and the gap between successive
 * reads of its body, and says when the plateau — every stream open — begins and ends, so the
 * caller can read CPU over exactly that window.
 */
import { performance } from 'node:perf_hooks';
import { Agent } from 'undici';
import { LatencyRecorder } from './latency-recorder.js';

export interface StreamLoadSpec {
  url: string;
  body: string;
  headers: Record<string, string>;
  streams: number;
  /** The requests are started evenly over this long. */
  rampMs: number;
  /** Whatever is still open this long after the first stream started is given up on (counted as errors). */
  giveUpMs: number;
  /** Called when every stream has had its first byte: the plateau begins. */
  onPlateauStart(): void;
  /** Called when the first stream ends, well or not, after the plateau began. */
  onPlateauEnd(): void;
}

export interface StreamLoadResult {
  streams: number;
  /** How long opening the N connections took. */
  connectS: number;
  /** Connections that could not be opened beforehand. */
  connectFailures: number;
  completed: number;
  errors: number;
  /** The first few errors' messages, to say what went wrong. */
  firstErrors: string[];
  ttfbP50Ms: number;
  ttfbP99Ms: number;
  /** Time between successive reads of one stream's body (one read carries one chunk unless they queued up). */
  gapP50Ms: number;
  gapP99Ms: number;
  /**
   * The same, for reads during the plateau only: no stream is being opened then, so this is what
   * holding N streams open costs, without the ramp's queue. Undefined when there was no plateau.
   */
  plateauGapP99Ms?: number;
  /** SSE events received in all (`data:` lines). */
  events: number;
  /** SSE events received during the plateau; undefined when there was none. */
  plateauEvents?: number;
}

const keptErrors = 3;
const idleConnectionMs = 60_000;
const eventMarker = Buffer.from('data:');
const doneMarker = Buffer.from('[DONE]');

export async function runStreamLoad(spec: StreamLoadSpec): Promise<StreamLoadResult> {
  const url = new URL(spec.url);
  // Connections wait idle through the ramp: keep them (servers here keep theirs for 65 s).
  const agent = new Agent({ connections: spec.streams, pipelining: 1, headersTimeout: spec.giveUpMs, bodyTimeout: spec.giveUpMs, keepAliveTimeout: idleConnectionMs, keepAliveMaxTimeout: idleConnectionMs });
  const ttfb = new LatencyRecorder();
  const gaps = new LatencyRecorder();
  const plateauGaps = new LatencyRecorder();
  const firstErrors: string[] = [];
  let completed = 0;
  let errors = 0;
  let events = 0;
  let opened = 0;
  let ended = 0;
  let plateauStartEvents: number | undefined;
  let plateauEvents: number | undefined;

  const streamEnded = (): void => {
    ended += 1;
    if (ended === 1 && plateauStartEvents !== undefined) {
      plateauEvents = events - plateauStartEvents;
      spec.onPlateauEnd();
    }
  };

  const fail = (message: string): void => {
    errors += 1;
    if (firstErrors.length < keptErrors) firstErrors.push(message);
  };

  // dispatch() with callbacks rather than request()'s body stream: a read costs the load
  // generator a few µs instead of a stream's push and 'data' event, and 5 000 streams send
  // 100 000 reads a second.
  const oneStream = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const sentAt = performance.now();
      let statusCode = 0;
      let refusal = '';
      let lastReadAt: number | undefined;
      let sawDone = false;
      const done = (problem?: string): void => {
        if (problem === undefined) completed += 1;
        else fail(problem);
        streamEnded();
        resolve();
      };
      agent.dispatch(
        { origin: url.origin, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', ...spec.headers }, body: spec.body },
        {
          // Nothing to do when sent, but undici takes a handler for its current API only when this is there.
          onRequestStart() {},
          onResponseStart(_controller, status) {
            statusCode = status;
          },
          onResponseData(_controller, chunk) {
            if (statusCode !== 200) {
              refusal += chunk.toString();
              return;
            }
            const now = performance.now();
            if (lastReadAt === undefined) {
              ttfb.record(now - sentAt);
              opened += 1;
              if (opened === spec.streams && ended === 0) {
                plateauStartEvents = events;
                spec.onPlateauStart();
              }
            } else {
              gaps.record(now - lastReadAt);
              if (plateauStartEvents !== undefined && plateauEvents === undefined) plateauGaps.record(now - lastReadAt);
            }
            lastReadAt = now;
            events += countOccurrences(chunk, eventMarker);
            if (chunk.includes(doneMarker)) sawDone = true;
          },
          onResponseEnd() {
            if (statusCode !== 200) done(`status ${statusCode}: ${refusal.slice(0, 200)}`);
            else done(sawDone ? undefined : 'the stream ended without data: [DONE]');
          },
          onResponseError(_controller, error) {
            done(error.message);
          },
        },
      );
    });

  const running: Promise<void>[] = [];
  let connectS = 0;
  let connectFailures = 0;
  let giveUp: NodeJS.Timeout | undefined;
  try {
    const connectStartedAt = performance.now();
    // All at once, so that none finds another's connection idle: each opens its own.
    await Promise.all(
      Array.from({ length: spec.streams }, () =>
        agent
          .request({ origin: url.origin, path: '/healthz', method: 'GET' })
          .then((response) => response.body.dump())
          // Its stream will connect on its own (and fail there if it must): only counted here.
          .catch(() => void (connectFailures += 1)),
      ),
    );
    connectS = (performance.now() - connectStartedAt) / 1000;
    giveUp = setTimeout(() => void agent.destroy(new Error(`still open ${spec.giveUpMs} ms after the first stream started`)), spec.giveUpMs);
    for (let index = 0; index < spec.streams; index++) {
      const dueMs = (index * spec.rampMs) / spec.streams;
      running.push(new Promise<void>((resolve) => setTimeout(() => resolve(oneStream()), dueMs)));
    }
    await Promise.all(running);
  } finally {
    clearTimeout(giveUp);
    await agent.destroy();
  }
  const ttfbFigures = ttfb.summarise([0.5, 0.99]).percentilesMs;
  const gapFigures = gaps.summarise([0.5, 0.99]).percentilesMs;
  // NaN when no read fell in a plateau (there was none, or it ended as it began).
  const plateauGapP99Ms = plateauGaps.summarise([0.99]).percentilesMs[0]!;
  return {
    streams: spec.streams,
    connectS,
    connectFailures,
    completed,
    errors,
    firstErrors,
    ttfbP50Ms: ttfbFigures[0]!,
    ttfbP99Ms: ttfbFigures[1]!,
    gapP50Ms: gapFigures[0]!,
    gapP99Ms: gapFigures[1]!,
    ...(Number.isNaN(plateauGapP99Ms) ? {} : { plateauGapP99Ms }),
    events,
    ...(plateauEvents === undefined ? {} : { plateauEvents }),
  };
}

function countOccurrences(buffer: Buffer, marker: Buffer): number {
  let count = 0;
  for (let at = buffer.indexOf(marker); at !== -1; at = buffer.indexOf(marker, at + marker.length)) count += 1;
  return count;
}
