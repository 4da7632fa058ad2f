import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UpstreamDialect } from '../providers/spec.js';
import { isRecord } from './answer.js';
import { answerContent, answerPlan, commonHeaders, type AnswerContent } from './answer-plan.js';
import { anthropicWire } from './anthropic-wire.js';
import { bedrockWire } from './bedrock-wire.js';
import type { EmbeddingsBody } from './embedding-vector.js';
import { noFaults, parseDirectives, type AnswerShape, type Faults } from './directives.js';
import type { FaultWindow } from './fault-window.js';
import type { BearerCheck, IssuedTokens } from './issued-tokens.js';
import { geminiEmbeddingsResponse } from './gemini-embeddings.js';
import { geminiWire } from './gemini-wire.js';
import type { MockAttempt, MockAttempts } from './mock-attempts.js';
import { flattenHeaders, headerText, parseJson, sendError, sendJson } from './mock-http.js';
import { embeddingsResponse } from './openai-embeddings.js';
import { openaiResponsesWire } from './openai-responses-wire.js';
import { openaiWire } from './openai-wire.js';
import { presentedKeys } from './presented-keys.js';
import type { PromptCache } from './prompt-cache.js';
import { promptUsage } from './prompt-usage.js';
import type { Route } from './routes.js';
import { SchemaProblem } from './schema-value.js';
import { afterDelay, playStream, streamEnding } from './stream-player.js';
import { answerThinking, thinkingRefusal } from './thinking-signatures.js';
import { ToolChoiceProblem } from './tool-call.js';
import { checkBearer, recordedAuthorization, vertexAccessRefusal } from './vertex-access.js';
import { vertexEmbeddingsResponse } from './vertex-embeddings.js';
import { vertexWire } from './vertex-wire.js';
import type { AnswerPlan, ErrorAnswer, WireFormat } from './wire.js';

const wires: Record<UpstreamDialect, WireFormat> = {
  openai: openaiWire,
  'openai-responses': openaiResponsesWire,
  anthropic: anthropicWire,
  gemini: geminiWire,
  bedrock: bedrockWire,
};

/** What the mock keeps across requests. */
export interface MockState {
  attempts: MockAttempts;
  faultWindow: FaultWindow;
  /** Keys refused as a provider refuses a revoked one. */
  rejectedKeys: ReadonlySet<string>;
  promptCache: PromptCache;
  /** Access tokens the token endpoint issued, which Vertex routes require. */
  tokens: IssuedTokens;
  /** The tokens' clock (default `Date.now`), so a test can let a token expire without waiting. */
  clock: () => number;
}

/** One request whose body has arrived, as the mock sees it. */
interface Arrival {
  request: IncomingMessage;
  route: Route;
  wire: WireFormat;
  attempt: MockAttempt;
  parsed: ReturnType<typeof parseDirectives>;
  fields: Record<string, unknown> | undefined;
  model: string;
  mockHeader: string | undefined;
  nowMs: number;
  /** Vertex routes only: the bearer presented. */
  bearer?: BearerCheck;
}

/** How an answer goes out: its response, the headers so far, the faults in force, and how its attempt is settled. */
interface Reply {
  response: ServerResponse;
  headers: Record<string, string>;
  faults: Faults;
  settle(outcome: string): void;
}

/** Answers one request to a provider route: recorded, checked as the provider would, then faulted or answered as its directives say. */
export function serveMockRequest(route: Route, path: string, request: IncomingMessage, response: ServerResponse, text: string, state: MockState): void {
  const arrival = arrive(route, path, request, text, state);
  const { attempt, parsed } = arrival;
  response.once('close', () => {
    if (attempt.outcome === undefined) state.attempts.settle(attempt, 'client_closed');
  });
  const refusal = refusalOf(arrival, request, state);
  if (refusal) {
    state.attempts.settle(attempt, refusal.outcome);
    sendError(response, refusal.error, {});
    return;
  }
  // Only for the types: `refusalOf` has answered a bad directive and a body that is no object.
  if (!parsed.ok || !arrival.fields) return;
  const { shape, window } = parsed.directives;
  const faultGroup = arrival.mockHeader === undefined ? arrival.model : `${arrival.model}\n${arrival.mockHeader}`;
  const inWindow = state.faultWindow.admit(faultGroup, window, arrival.nowMs);
  const faults = inWindow ? parsed.directives.faults : noFaults;
  const headers = commonHeaders(arrival.wire, attempt.n, shape, inWindow, arrival.nowMs);
  const settle = (outcome: string) => state.attempts.settle(attempt, outcome);
  if (faults.reset) {
    settle('reset');
    request.socket.resetAndDestroy();
  } else if (faults.silence) {
    settle('silence');
  } else if (faults.status !== undefined || faults.errorName !== undefined) {
    const error = arrival.wire.error(faults, { model: parsed.name, stream: attempt.stream });
    afterDelay(response, faults.headersDelayMs, () => {
      settle(`status ${error.status}`);
      sendError(response, error, headers);
    });
  } else if (route.endpoint === 'embeddings') {
    serveEmbeddings(arrival, arrival.fields, { response, headers, faults, settle });
  } else {
    serveCompletion(arrival, { fields: arrival.fields, shape, promptCache: state.promptCache }, { response, headers, faults, settle });
  }
}

/** Records the attempt with what it asked for (its model, directives, headers and body). */
function arrive(route: Route, path: string, request: IncomingMessage, text: string, state: MockState): Arrival {
  const nowMs = Date.now();
  const body = parseJson(text);
  const fields = isRecord(body) ? body : undefined;
  const inPath = route.inPath;
  const model = inPath ? inPath.model : typeof fields?.model === 'string' ? fields.model : '';
  const mockHeader = headerText(request.headers['x-mock'], '&');
  const parsed = parseDirectives(model, mockHeader);
  const headers = flattenHeaders(request.headers);
  const bearer = route.home === 'vertex' ? checkBearer(request, state.tokens, state.clock()) : undefined;
  // An access token is a secret: a Vertex attempt records only which issued token it was.
  if (bearer && headers.authorization !== undefined) headers.authorization = recordedAuthorization(bearer);
  const attempt = state.attempts.add({
    atMs: nowMs,
    dialect: route.dialect,
    ...(route.home ? { home: route.home } : {}),
    path,
    model,
    name: parsed.name,
    stream: inPath ? inPath.stream : route.endpoint === 'chat' && fields?.stream === true,
    directives: parsed.raw,
    headers,
    body: body === undefined ? text : body,
  });
  const wire = route.vertex ? vertexWire(route.vertex) : wires[route.dialect];
  return { request, route, wire, attempt, parsed, fields, model, mockHeader, nowMs, bearer };
}

/** Why the request is refused before any directive applies: a rejected key (checked first, as a provider does), a bad body, a bad directive. */
function refusalOf(arrival: Arrival, request: IncomingMessage, state: MockState): { outcome: string; error: ErrorAnswer } | undefined {
  const { wire, parsed, fields, route } = arrival;
  if (state.rejectedKeys.size > 0 && presentedKeys(request).some((key) => state.rejectedKeys.has(key))) {
    const error = wire.error({ errorName: 'credential' }, { model: parsed.name, stream: arrival.attempt.stream });
    return { outcome: `status ${error.status}`, error };
  }
  const unauthenticated = vertexAccessRefusal(route, arrival.bearer);
  if (unauthenticated) return { outcome: `status ${unauthenticated.status}`, error: unauthenticated };
  if (route.problem !== undefined || !fields || arrival.model === '') {
    const message = route.problem ?? (fields ? "mock: 'model' must be a non-empty string" : 'mock: the request body must be a JSON object');
    return { outcome: 'invalid_request', error: wire.invalidRequest(message) };
  }
  const refused = wire.refuseBody?.(fields);
  if (refused) return { outcome: 'invalid_request', error: refused };
  if (!parsed.ok) return { outcome: 'bad_directive', error: wire.invalidRequest(`mock: ${parsed.problem}`) };
  return undefined;
}

function serveEmbeddings(arrival: Arrival, fields: Record<string, unknown>, { response, headers, faults, settle }: Reply): void {
  const answer = embeddingsAnswer(arrival.route, fields, arrival.parsed.name);
  if (!answer.ok) {
    settle('invalid_request');
    sendError(response, arrival.wire.invalidRequest(answer.message), headers);
    return;
  }
  afterDelay(response, faults.headersDelayMs + faults.firstTokenMs, () => {
    settle('ok');
    sendJson(response, 200, answer.json, headers);
  });
}

function embeddingsAnswer(route: Route, fields: Record<string, unknown>, name: string): EmbeddingsBody {
  if (route.home === 'vertex') return vertexEmbeddingsResponse(fields);
  return route.dialect === 'gemini' ? geminiEmbeddingsResponse(fields) : embeddingsResponse(fields, name);
}

function serveCompletion(
  arrival: Arrival,
  { fields, shape, promptCache }: { fields: Record<string, unknown>; shape: AnswerShape; promptCache: PromptCache },
  reply: Reply,
): void {
  const { response, headers, faults, settle } = reply;
  const { wire, attempt, route, nowMs } = arrival;
  const refusedThinking = thinkingRefusal(route, fields, arrival.parsed.name);
  if (refusedThinking !== undefined) {
    settle('invalid_request');
    sendError(response, wire.invalidRequest(refusedThinking), headers);
    return;
  }
  let content: AnswerContent;
  try {
    content = answerContent(route.dialect, fields, shape);
  } catch (error) {
    if (!(error instanceof SchemaProblem || error instanceof ToolChoiceProblem)) throw error;
    settle('invalid_request');
    sendError(response, wire.invalidRequest(`mock: ${error.message}`), headers);
    return;
  }
  const usage = promptUsage({
    dialect: route.dialect,
    body: fields,
    directed: shape.cache,
    promptCache,
    // A cache is an account's, for one model: two keys to one provider have two caches.
    scope: () => `${presentedKeys(arrival.request).join(' ')}\n${arrival.parsed.name}`,
    nowMs,
  });
  const plan = answerPlan({ n: attempt.n, name: arrival.parsed.name, nowMs }, fields, shape, content, usage);
  const thinking = answerThinking(route, fields, arrival.parsed.name, attempt.n);
  if (thinking !== undefined) plan.thinking = thinking;
  if (!attempt.stream) {
    afterDelay(response, faults.headersDelayMs + faults.firstTokenMs, () => {
      settle('ok');
      sendJson(response, 200, wire.completion(plan), headers);
    });
    return;
  }
  serveStream(wire, plan, shape, reply);
}

function serveStream(wire: WireFormat, plan: AnswerPlan, shape: AnswerShape, { response, headers, faults, settle }: Reply): void {
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
      onEnding: () => settle(outcome),
    });
  });
}
