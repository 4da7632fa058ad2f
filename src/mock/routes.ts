import type { UpstreamDialect } from '../providers/spec.js';

export interface Route {
  dialect: UpstreamDialect;
  endpoint: 'chat' | 'embeddings';
  /**
   * Gemini and Bedrock name the model in the path (URL-encoded, decoded here) and stream by
   * method; OpenAI and Anthropic say both in the body.
   */
  inPath?: { model: string; stream: boolean };
  /** Why the mock cannot serve the request, though the route is known (answered with a 400). */
  problem?: string;
  /** Where the dialect is served from when that is not its own provider: Vertex AI serves Claude and Gemini. A route's home is `home ?? dialect`. */
  home?: 'vertex';
  /** The Vertex resource the path names, for Vertex's own errors (its 404 names it). */
  vertex?: VertexResource;
}

export interface VertexResource {
  project: string;
  location: string;
  publisher: 'anthropic' | 'google';
  /** `rawPredict`, `streamGenerateContent`, …: Vertex names the RPC in its auth errors. */
  method: string;
}

const fixedRoutes = new Map<string, Route>([
  ['/v1/chat/completions', { dialect: 'openai', endpoint: 'chat' }],
  ['/chat/completions', { dialect: 'openai', endpoint: 'chat' }],
  ['/v1/embeddings', { dialect: 'openai', endpoint: 'embeddings' }],
  ['/embeddings', { dialect: 'openai', endpoint: 'embeddings' }],
  ['/v1/responses', { dialect: 'openai-responses', endpoint: 'chat' }],
  ['/responses', { dialect: 'openai-responses', endpoint: 'chat' }],
  ['/v1/messages', { dialect: 'anthropic', endpoint: 'chat' }],
]);

// The greedy model group ends at the last colon, so a colon inside a model name is fine.
const geminiPath = /^\/v1(?:beta)?\/models\/([^/]+):(generateContent|streamGenerateContent|batchEmbedContents)$/;
const bedrockPath = /^\/model\/([^/]+)\/(converse|converse-stream)$/;
const vertexPath = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(anthropic|google)\/models\/([^/]+):([A-Za-z]+)$/;

/** Each Vertex publisher's methods the mock serves: the dialect spoken, whether it streams, chat or embeddings. */
const vertexMethods: Record<VertexResource['publisher'], Record<string, Pick<Route, 'dialect' | 'endpoint'> & { stream: boolean }>> = {
  anthropic: {
    rawPredict: { dialect: 'anthropic', endpoint: 'chat', stream: false },
    streamRawPredict: { dialect: 'anthropic', endpoint: 'chat', stream: true },
  },
  google: {
    generateContent: { dialect: 'gemini', endpoint: 'chat', stream: false },
    streamGenerateContent: { dialect: 'gemini', endpoint: 'chat', stream: true },
    predict: { dialect: 'gemini', endpoint: 'embeddings', stream: false },
  },
};

/** The route for a POST to `path` (`query` without its `?`), or undefined for a 404. */
export function findRoute(path: string, query: string): Route | undefined {
  const fixed = fixedRoutes.get(path);
  if (fixed) return fixed;
  const gemini = geminiPath.exec(path);
  if (gemini) {
    const stream = gemini[2] === 'streamGenerateContent';
    return withSseOnly(pathRoute('gemini', gemini[1]!, stream, gemini[2] === 'batchEmbedContents' ? 'embeddings' : 'chat'), query);
  }
  const bedrock = bedrockPath.exec(path);
  if (bedrock) return pathRoute('bedrock', bedrock[1]!, bedrock[2] === 'converse-stream');
  const vertex = vertexPath.exec(path);
  if (vertex) return vertexRoute(vertex, query);
  return undefined;
}

/** A Vertex path's route; a method its publisher does not have is a 404, as on Vertex. */
function vertexRoute([, project, location, publisher, model, method]: RegExpExecArray, query: string): Route | undefined {
  const methods = vertexMethods[publisher as VertexResource['publisher']];
  if (!Object.hasOwn(methods, method!)) return undefined;
  const served = methods[method!]!;
  const route = pathRoute(served.dialect, model!, served.stream, served.endpoint);
  route.home = 'vertex';
  route.vertex = { project: project!, location: location!, publisher: publisher as VertexResource['publisher'], method: method! };
  return served.dialect === 'gemini' ? withSseOnly(route, query) : route;
}

/** Without alt=sse Gemini streams one JSON array, a form the mock does not speak. */
function withSseOnly(route: Route, query: string): Route {
  if (route.inPath?.stream && !route.problem && new URLSearchParams(query).get('alt') !== 'sse') {
    route.problem = 'mock: streamGenerateContent is served as SSE only; add ?alt=sse';
  }
  return route;
}

function pathRoute(dialect: UpstreamDialect, encodedModel: string, stream: boolean, endpoint: Route['endpoint'] = 'chat'): Route {
  try {
    return { dialect, endpoint, inPath: { model: decodeURIComponent(encodedModel), stream } };
  } catch {
    return {
      dialect,
      endpoint,
      inPath: { model: encodedModel, stream },
      problem: 'mock: the model in the path is not validly URL-encoded',
    };
  }
}
