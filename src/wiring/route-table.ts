import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { AdminAccessDeps } from '../access/admin-access.js';
import { guardAdminRoutes } from '../http/guard-admin-routes.js';
import { handleListAudit } from '../admin/handle-audit.js';
import { handleMe } from '../admin/handle-me.js';
import { handleListCanaries, handleResetCanaryBaseline, handleRunCanaries } from '../admin/handle-canaries.js';
import { handleLatestDrill, handleRunDrill } from '../admin/handle-drills.js';
import { handleHealth } from '../admin/handle-health.js';
import { handleRotateKey, handleUpdateKey } from '../admin/handle-key-changes.js';
import { handleCreateKey, handleKeySpend, handleListKeys, handleRevokeKey } from '../admin/handle-keys.js';
import { handleRunRehearsal, type AdminRehearsalsDeps } from '../admin/handle-rehearsals.js';
import { handleGetRequest, handleListRequests } from '../admin/handle-requests.js';
import { handleCreateTeam, handleDeleteTeam, handleGetTeam, handleListTeams, handlePatchTeam, handleTeamSpend } from '../admin/handle-teams.js';
import { handleStats } from '../admin/handle-stats.js';
import { handleCreateToken, handleListTokens, handleRevokeToken, type AdminTokensDeps } from '../admin/handle-tokens.js';
import type { Config } from '../config/schema.js';
import { handleDeleteStoredResponse, handleGetStoredResponse } from '../conversations/handle-stored-response.js';
import { ANTHROPIC_MESSAGES } from '../dialects/anthropic-messages/anthropic-messages.js';
import { OPENAI_CHAT } from '../dialects/openai-chat/openai-chat.js';
import type { RouteTable } from '../http/route-matcher.js';
import type { GatewayResponse } from '../http/gateway-response.js';
import { handleCountTokens } from '../http/handle-count-tokens.js';
import { handleLiveness, handleReadiness } from '../http/handle-health-checks.js';
import { handleMetrics } from '../http/handle-metrics.js';
import { handleModel, handleModels } from '../http/handle-models.js';
import { refuseWebSocket } from '../http/refuse-web-socket.js';
import { builtUiDirectory, redirectToUi, serveUi } from '../http/serve-ui.js';
import { chatEndpoint } from '../serving/chat-endpoint.js';
import { EMBEDDINGS_ENDPOINT } from '../serving/embeddings-endpoint.js';
import type { Endpoint } from '../serving/endpoint.js';
import { HttpReply } from '../serving/http-reply.js';
import { httpInbound } from '../serving/inbound.js';
import { serveRequest, type ServingDeps } from '../serving/serve-request.js';
import type { StateReadiness } from '../state/shared-state.js';
import { handleSignInCallback } from '../signin/finish-sign-in.js';
import type { SignInDeps } from '../signin/sign-in-deps.js';
import { handleSignOut } from '../signin/sign-out.js';
import { handleSignInInfo, handleStartSignIn } from '../signin/start-sign-in.js';
import type { Metrics } from '../telemetry/metrics.js';
import type { Callers } from './callers.js';
import type { Health } from './health.js';
import type { Runs } from './runs.js';
import type { Storage } from './storage.js';

export interface RouteTableDeps {
  /** Who may ask the admin API, and how they are recognised. */
  access: AdminAccessDeps;
  /** What `/admin/tokens` works on. */
  adminTokens: AdminTokensDeps;
  /** Sign-in to the dashboard through the identity provider (signin/). */
  signIn: SignInDeps;
  config: () => Config;
  logger: Logger;
  metrics: Metrics;
  storage: Storage;
  callers: Callers;
  health: Health;
  runs: Runs;
  /** `POST /admin/rehearsals`: the config in force rehearsed on throwaway gateways. */
  rehearsals: AdminRehearsalsDeps;
  readiness(): StateReadiness;
}

/** An inference endpoint served over HTTP through the request pipeline (serving/), its reply made on arrival. */
function served<Parsed extends { requestedModel: string }, Answer>(endpoint: Endpoint<Parsed, Answer>, deps: ServingDeps) {
  return (request: IncomingMessage, response: GatewayResponse, requestId: string) =>
    serveRequest(httpInbound(request), new HttpReply(response, requestId, endpoint, deps), requestId, endpoint, deps);
}

/**
 * Every endpoint the gateway answers, and the handler of each, in the folder that owns it. Each
 * entry only hands its handler what it reads; a handler taking the config takes the snapshot in
 * force when the request arrives.
 */
export function routeTable(deps: RouteTableDeps): RouteTable {
  const { config, storage, callers, health, runs } = deps;
  const { keys, serving, adminKeys, adminTeams } = callers;
  const stored = storage.storedResponses;
  const startedAtSeconds = Math.floor(Date.now() / 1000);
  const adminRequests = { records: storage.records, teams: adminTeams.teams };
  const adminDrills = { drills: runs.drills };
  const canaries = runs.adminCanaries;
  const uiDirectory = builtUiDirectory();
  return guardAdminRoutes({
    // The inference API (serving/), one endpoint per caller dialect.
    'POST /v1/chat/completions': served(chatEndpoint(OPENAI_CHAT), serving),
    'POST /v1/messages': served(chatEndpoint(ANTHROPIC_MESSAGES), serving),
    'POST /v1/embeddings': served(EMBEDDINGS_ENDPOINT, serving),
    'POST /v1/responses': served(callers.responses, serving),
    // Stored Responses API answers (conversations/).
    'GET /v1/responses/:id': (request, response, _id, params) => handleGetStoredResponse(request, response, params.id!, { config: config(), keys, stored }),
    'DELETE /v1/responses/:id': (request, response, _id, params) => handleDeleteStoredResponse(request, response, params.id!, { config: config(), keys, stored }),
    // The small caller endpoints (http/); an upgrade reaches `GET /v1/responses` only while `server.websocket` is false.
    'GET /v1/responses': refuseWebSocket,
    'POST /v1/messages/count_tokens': (request, response) => handleCountTokens(request, response, { config: config(), keys }),
    'GET /v1/models': (request, response) => handleModels(request, response, { config: config(), keys, startedAtSeconds }),
    'GET /v1/models/:id': (request, response, _id, params) => handleModel(request, response, params.id!, { config: config(), keys, startedAtSeconds }),
    // Operations (http/).
    'GET /healthz': handleLiveness,
    'GET /readyz': (request, response) =>
      handleReadiness(request, response, { routes: () => Object.keys(config().routes).length, state: deps.readiness, spill: storage.sinkCounts.spilled }),
    'GET /metrics': (request, response) => handleMetrics(request, response, deps.metrics),
    // The admin API (admin/), each route behind its rule (access/admin-rules.ts).
    'GET /admin/me': handleMe,
    'GET /admin/requests': (request, response, _id, params) => handleListRequests(request, response, params, adminRequests),
    'GET /admin/requests/:id': (request, response, _id, params) => handleGetRequest(request, response, params, adminRequests),
    'GET /admin/health': (request, response) => handleHealth(request, response, { config, health: health.registry, cooling: health.cooling, latency: health.latency }),
    'GET /admin/stats': (request, response) => handleStats(request, response, { db: storage.db, teams: adminTeams.teams, flush: storage.flush }),
    'POST /admin/keys': (request, response, requestId, params) => handleCreateKey(request, response, params, adminKeys, requestId),
    'GET /admin/keys': (request, response, _id, params) => handleListKeys(request, response, params, adminKeys),
    'PATCH /admin/keys/:id': (request, response, requestId, params) => handleUpdateKey(request, response, params, adminKeys, requestId),
    'DELETE /admin/keys/:id': (request, response, requestId, params) => handleRevokeKey(request, response, params, adminKeys, requestId),
    'POST /admin/keys/:id/rotate': (request, response, requestId, params) => handleRotateKey(request, response, params, adminKeys, requestId),
    'GET /admin/keys/:id/spend': (request, response, _id, params) => handleKeySpend(request, response, params, adminKeys),
    'POST /admin/tokens': (request, response, requestId, params) => handleCreateToken(request, response, params, deps.adminTokens, requestId),
    'GET /admin/tokens': (request, response, _id, params) => handleListTokens(request, response, params, deps.adminTokens),
    'DELETE /admin/tokens/:id': (request, response, requestId, params) => handleRevokeToken(request, response, params, deps.adminTokens, requestId),
    'POST /admin/teams': (request, response, requestId, params) => handleCreateTeam(request, response, params, adminTeams, requestId),
    'GET /admin/teams': (request, response, _id, params) => handleListTeams(request, response, params, adminTeams),
    'GET /admin/teams/:id': (request, response, _id, params) => handleGetTeam(request, response, params, adminTeams),
    'PATCH /admin/teams/:id': (request, response, requestId, params) => handlePatchTeam(request, response, params, adminTeams, requestId),
    'DELETE /admin/teams/:id': (request, response, requestId, params) => handleDeleteTeam(request, response, params, adminTeams, requestId),
    'GET /admin/teams/:id/spend': (request, response, _id, params) => handleTeamSpend(request, response, params, adminTeams),
    'GET /admin/canaries': (request, response, _id, params) => handleListCanaries(request, response, params, canaries),
    'POST /admin/canaries': (request, response, requestId, params) => handleRunCanaries(request, response, params, canaries, requestId),
    'DELETE /admin/canaries/:route/baseline': (request, response, _id, params) => handleResetCanaryBaseline(request, response, params, canaries),
    'POST /admin/drills': (request, response, requestId) => handleRunDrill(request, response, adminDrills, requestId),
    'GET /admin/drills': (request, response) => handleLatestDrill(request, response, adminDrills),
    'POST /admin/rehearsals': (request, response) => handleRunRehearsal(request, response, deps.rehearsals),
    'GET /admin/audit': (request, response) => handleListAudit(request, response, { db: storage.db }),
    // Sign-in to the dashboard through the identity provider (signin/); exact paths, matched before /ui/*.
    'GET /ui/login/oidc': (request, response) => handleStartSignIn(request, response, deps.signIn),
    'GET /ui/login/oidc/callback': (request, response, requestId) => handleSignInCallback(request, response, requestId, deps.signIn),
    'GET /ui/login/oidc/info': (request, response) => handleSignInInfo(request, response, deps.signIn),
    'POST /ui/logout': (request, response) => handleSignOut(request, response, deps.signIn),
    // The dashboard (ui/, served by http/).
    'GET /ui': redirectToUi,
    'GET /ui/*': (request, response, _id, params) => serveUi(request, response, params.rest ?? '', uiDirectory),
  }, deps.access);
}
