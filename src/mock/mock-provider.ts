/**
 * The built-in fault-injecting mock provider (docs/mock.md): an HTTP server speaking the OpenAI,
 * Anthropic, Gemini and Bedrock wire formats that misbehaves on request. Directives ride on the
 * model string (`gpt-mock?status=503`, URL-encoded in Gemini and Bedrock paths) or an `x-mock`
 * header; see docs/mock.md.
 *
 * It is also the benchmark backend, so an undelayed answer costs one parse, a few string
 * concatenations and a single write, with no timers.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { UpstreamDialect } from '../providers/spec.js';
import { countInputTokens, isRecord, mockAnswerText, mockDegradedPieces, splitIntoPieces } from './answer.js';
import { anthropicWire } from './anthropic-wire.js';
import { bedrockWire } from './bedrock-wire.js';
import { noFaults, parseDirectives, type AnswerShape, type Faults } from './directives.js';
import { FaultWindow } from './fault-window.js';
import { geminiWire } from './gemini-wire.js';
import { geminiEmbeddingsResponse } from './gemini-embeddings.js';
import { embeddingsResponse } from './openai-embeddings.js';
import { openaiResponsesWire } from './openai-responses-wire.js';
import { openaiWire } from './openai-wire.js';
import { presentedKeys } from './presented-keys.js';
import { requestedJson } from './requested-json.js';
import { findRoute, type Route } from './routes.js';
import { SchemaProblem, schemaValue } from './schema-value.js';
import { afterDelay, playStream, streamEnding } from './stream-player.js';
import { mockToolCall, ToolChoiceProblem, type MockToolCall } from './tool-call.js';
import type { AnswerPlan, ErrorAnswer, WireFormat } from './wire.js';

export { mockAnswerText } from './answer.js';

export interface MockAttempt {
  /** 1-based, in arrival order; restarts at 1 after `reset()`. */
  n: number;
  atMs: number;
  dialect: UpstreamDialect;
  path: string;
  /** The full model string as sent (decoded from the path for Gemini and Bedrock), directives included. */
  model: string;
  /** The model before `?`. */
  name: string;
  stream: boolean;
  /** Model-string directives merged with (and overridden by) the `x-mock` header's. */
  directives: Record<string, string>;
  headers: Record<string, string>;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  /**
   * What the mock did, set when it acted in full (answer written, connection cut, stall begun):
   * `ok`, `status <N>`, `reset`, `silence`, `cut`, `stall`, `inband_error`, `invalid_request`
   * (bad body), `bad_directive`, or `client_closed` when the client left before that. Undefined
   * while a delayed or paced answer is still going out.
   */
  outcome?: string;
}

export interface MockProvider {
  /** `http://HOST:PORT`, without a trailing slash. */
  url: string;
  port: number;
  attempts: readonly MockAttempt[];
  attemptsFor(name: string): MockAttempt[];
  /** Forgets attempts and the `times` / `flap_down_s` counters. */
  reset(): void;
  /** Stops listening and destroys every open socket, silent and stalled ones included. */
  close(): Promise<void>;
}

export interface MockProviderOptions {
  port?: number;
  host?: string;
  /** One line per attempt on stderr. */
  log?: boolean;
  /**
   * Attempts kept for inspection (default 10 000). Older ones are dropped in batches, so at
   * least this many of the latest are always available; a benchmark run cannot exhaust memory.
   */
  maxAttempts?: number;
  /**
   * Keys the mock refuses as the provider refuses a revoked or expired one: every request
   * presenting one gets the dialect's own credential error (the `error=credential` answer),
   * whatever its directives. Other keys, and requests with none, are served as always.
   */
  rejectedKeys?: readonly string[];
}

const wires: Record<UpstreamDialect, WireFormat> = {
  openai: openaiWire,
  'openai-responses': openaiResponsesWire,
  anthropic: anthropicWire,
  gemini: geminiWire,
  bedrock: bedrockWire,
};

const defaultMaxAttempts = 10_000;
// Longer than common clients' idle timeouts (undici: 4 s), so the client, not the mock, retires
// idle connections and never reuses one the mock is closing.
const keepAliveTimeoutMs = 65_000;

export async function startMockProvider(options: MockProviderOptions = {}): Promise<MockProvider> {
  const host = options.host ?? '127.0.0.1';
  const maxAttempts = options.maxAttempts ?? defaultMaxAttempts;
  const rejectedKeys = new Set(options.rejectedKeys ?? []);
  const attempts: MockAttempt[] = [];
  const faultWindow = new FaultWindow();
  const sockets = new Set<Socket>();
  let attemptCount = 0;

  const record = (attempt: MockAttempt): void => {
    attempts.push(attempt);
    if (attempts.length >= maxAttempts * 2) attempts.splice(0, attempts.length - maxAttempts);
  };

  const settle = (attempt: MockAttempt, outcome: string): void => {
    attempt.outcome = outcome;
    if (options.log) {
      const { n, dialect, path, model, stream } = attempt;
      process.stderr.write(`mock #${n} ${dialect} ${path} ${model} stream=${stream} -> ${outcome}\n`);
    }
  };

  const serve = (
    route: Route,
    path: string,
    request: IncomingMessage,
    response: ServerResponse,
    text: string,
  ): void => {
    const nowMs = Date.now();
    const wire = wires[route.dialect];
    const body = parseJson(text);
    const fields = isRecord(body) ? body : undefined;
    const inPath = route.inPath;
    const model = inPath ? inPath.model : typeof fields?.model === 'string' ? fields.model : '';
    const mockHeader = headerText(request.headers['x-mock'], '&');
    const parsed = parseDirectives(model, mockHeader);
    const attempt: MockAttempt = {
      n: ++attemptCount,
      atMs: nowMs,
      dialect: route.dialect,
      path,
      model,
      name: parsed.name,
      stream: inPath ? inPath.stream : route.endpoint === 'chat' && fields?.stream === true,
      directives: parsed.raw,
      headers: flattenHeaders(request.headers),
      body: body === undefined ? text : body,
    };
    record(attempt);
    response.once('close', () => {
      if (attempt.outcome === undefined) settle(attempt, 'client_closed');
    });

    // A provider checks the key before it reads the request.
    if (rejectedKeys.size > 0 && presentedKeys(request).some((key) => rejectedKeys.has(key))) {
      const error = wire.error({ errorName: 'credential' }, { model: parsed.name, stream: attempt.stream });
      settle(attempt, `status ${error.status}`);
      sendError(response, error, {});
      return;
    }

    if (route.problem !== undefined || !fields || model === '') {
      settle(attempt, 'invalid_request');
      const message =
        route.problem ??
        (fields ? "mock: 'model' must be a non-empty string" : 'mock: the request body must be a JSON object');
      sendError(response, wire.invalidRequest(message), {});
      return;
    }
    if (!parsed.ok) {
      settle(attempt, 'bad_directive');
      sendError(response, wire.invalidRequest(`mock: ${parsed.problem}`), {});
      return;
    }

    const { shape, window } = parsed.directives;
    const faultGroup = mockHeader === undefined ? model : `${model}\n${mockHeader}`;
    const inWindow = faultWindow.admit(faultGroup, window, nowMs);
    const faults = inWindow ? parsed.directives.faults : noFaults;
    const headers = commonHeaders(wire, attempt.n, shape, inWindow, nowMs);

    if (faults.reset) {
      settle(attempt, 'reset');
      request.socket.resetAndDestroy();
      return;
    }
    if (faults.silence) {
      settle(attempt, 'silence');
      return;
    }
    if (faults.status !== undefined || faults.errorName !== undefined) {
      const error = wire.error(faults, { model: parsed.name, stream: attempt.stream });
      afterDelay(response, faults.headersDelayMs, () => {
        settle(attempt, `status ${error.status}`);
        sendError(response, error, headers);
      });
      return;
    }

    if (route.endpoint === 'embeddings') {
      const answer = route.dialect === 'gemini' ? geminiEmbeddingsResponse(fields) : embeddingsResponse(fields, parsed.name);
      if (!answer.ok) {
        settle(attempt, 'invalid_request');
        sendError(response, wire.invalidRequest(answer.message), headers);
        return;
      }
      afterDelay(response, faults.headersDelayMs + faults.firstTokenMs, () => {
        settle(attempt, 'ok');
        sendJson(response, 200, answer.json, headers);
      });
      return;
    }

    let content: AnswerContent;
    try {
      content = answerContent(route.dialect, fields, shape);
    } catch (error) {
      if (!(error instanceof SchemaProblem || error instanceof ToolChoiceProblem)) throw error;
      settle(attempt, 'invalid_request');
      sendError(response, wire.invalidRequest(`mock: ${error.message}`), headers);
      return;
    }
    const plan = answerPlan(attempt.n, parsed.name, nowMs, fields, shape, content);
    if (!attempt.stream) {
      afterDelay(response, faults.headersDelayMs + faults.firstTokenMs, () => {
        settle(attempt, 'ok');
        sendJson(response, 200, wire.completion(plan), headers);
      });
      return;
    }
    serveStream(wire, plan, shape, faults, attempt, response, headers);
  };

  const serveStream = (
    wire: WireFormat,
    plan: AnswerPlan,
    shape: AnswerShape,
    faults: Faults,
    attempt: MockAttempt,
    response: ServerResponse,
    headers: Record<string, string>,
  ): void => {
    const frames = wire.stream(plan);
    const ending = streamEnding(faults, frames.pieceCount);
    const outcome = ending.kind === 'complete' ? 'ok' : ending.kind === 'inband' ? 'inband_error' : ending.kind;
    headers['content-type'] = wire.streamContentType;
    headers['cache-control'] = 'no-cache';
    afterDelay(response, faults.headersDelayMs, () => {
      response.writeHead(200, headers);
      playStream(response, {
        frames,
        ending,
        inbandFrame: faults.inband ? wire.inbandError(faults.inband.kind) : '',
        malformedAfter: faults.malformedAfter,
        malformedFrame: wire.malformedFrame,
        firstTokenMs: faults.firstTokenMs,
        chunkMs: shape.chunkMs,
        terminate: !faults.noDone,
        onEnding: () => settle(attempt, outcome),
      });
    });
  };

  const control = (path: string, request: IncomingMessage, response: ServerResponse): boolean => {
    if (path === '/_mock/attempts' && request.method === 'GET') {
      sendJson(response, 200, JSON.stringify({ data: attempts }), {});
      return true;
    }
    if (path === '/_mock/reset' && request.method === 'POST') {
      reset();
      sendJson(response, 200, '{"ok":true}', {});
      return true;
    }
    return false;
  };

  const reset = (): void => {
    attempts.length = 0;
    attemptCount = 0;
    faultWindow.clear();
  };

  const server = createServer((request, response) => {
    const url = request.url ?? '/';
    const queryStart = url.indexOf('?');
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    const route = request.method === 'POST' ? findRoute(path, queryStart === -1 ? '' : url.slice(queryStart + 1)) : undefined;
    if (!route) {
      request.resume();
      if (!control(path, request, response)) {
        const notFound = openaiWire.invalidRequest(`mock: no route for ${request.method} ${path}`);
        sendJson(response, 404, notFound.body, {});
      }
      return;
    }
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const text = parts.length === 1 ? parts[0]!.toString('utf8') : Buffer.concat(parts).toString('utf8');
      serve(route, path, request, response, text);
    });
  });
  server.keepAliveTimeout = keepAliveTimeoutMs;
  server.headersTimeout = keepAliveTimeoutMs + 1_000;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    attempts,
    attemptsFor: (name) => attempts.filter((attempt) => attempt.name === name),
    reset,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** A tool call's arguments stream in this many fragments (fewer when the JSON is shorter), whatever `chunks` says. */
const toolArgumentPieces = 3;

interface AnswerContent {
  toolCall?: MockToolCall;
  /** Undefined for the standard text. */
  pieces?: string[];
}

/**
 * A tool call (./tool-call.ts) with its arguments in fragments; or, when the answer is not the
 * standard text, its pieces: JSON that fits the requested schema (any JSON object for
 * `json_object`), or the text with a share of its words replaced. A tool call has no text, and
 * JSON is never degraded (it would no longer fit).
 */
function answerContent(dialect: UpstreamDialect, fields: Record<string, unknown>, shape: AnswerShape): AnswerContent {
  const toolCall = mockToolCall(dialect, fields, shape.toolCall);
  if (toolCall) return { toolCall, pieces: splitIntoPieces(JSON.stringify(toolCall.input), toolArgumentPieces) };
  const json = requestedJson(dialect, fields);
  if (json) {
    const value = json.schema === undefined ? { answer: mockAnswerText(shape.chunks) } : schemaValue(json.schema);
    return { pieces: splitIntoPieces(JSON.stringify(value), shape.chunks) };
  }
  return shape.degrade ? { pieces: mockDegradedPieces(shape.chunks, shape.degrade) } : {};
}

function answerPlan(
  n: number,
  name: string,
  nowMs: number,
  fields: Record<string, unknown>,
  shape: AnswerShape,
  { toolCall, pieces }: AnswerContent,
): AnswerPlan {
  const streamOptions = fields.stream_options;
  return {
    n,
    name,
    createdS: Math.floor(nowMs / 1000),
    inputTokens: countInputTokens(fields),
    cache: shape.cache,
    pieceCount: pieces?.length ?? shape.chunks,
    ...(pieces ? { pieces } : {}),
    toolCall,
    finish: shape.finish,
    includeUsage: isRecord(streamOptions) && streamOptions.include_usage === true,
  };
}

function commonHeaders(wire: WireFormat, n: number, shape: AnswerShape, inWindow: boolean, nowMs: number): Record<string, string> {
  const headers: Record<string, string> = {};
  if (wire.requestIdHeader !== undefined) headers[wire.requestIdHeader] = `req_mock_${n}`;
  const rateLimit = shape.rateLimit;
  if (rateLimit && wire.rateLimitHeaders) {
    // A limit that changes once the window has passed: how a provider stepping a limit down looks.
    const limit = inWindow ? rateLimit.limit : (rateLimit.limitAfterWindow ?? rateLimit.limit);
    const remaining = Math.min(rateLimit.remaining, Math.max(0, limit - 1));
    Object.assign(headers, wire.rateLimitHeaders(limit, remaining, rateLimit.resetS, nowMs));
  }
  return headers;
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string>,
  contentType = 'application/json',
): void {
  headers['content-type'] = contentType;
  headers['content-length'] = String(Buffer.byteLength(body));
  response.writeHead(status, headers);
  response.end(body);
}

function sendError(response: ServerResponse, error: ErrorAnswer, headers: Record<string, string>): void {
  sendJson(response, error.status, error.body, Object.assign(headers, error.headers), error.contentType);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function headerText(value: string | string[] | undefined, separator: string): string | undefined {
  return Array.isArray(value) ? value.join(separator) : value;
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const text = headerText(value, ', ');
    if (text !== undefined) flat[name] = text;
  }
  return flat;
}
