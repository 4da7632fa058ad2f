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
  /** Where the route answers as, when not its dialect's own provider (Claude on Vertex speaks Anthropic's dialect). */
  home?: 'vertex';
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

/** The route for a POST to `path` (`query` without its `?`), or undefined for a 404. */
export function findRoute(path: string, query: string): Route | undefined {
  const fixed = fixedRoutes.get(path);
  if (fixed) return fixed;
  const gemini = geminiPath.exec(path);
  if (gemini) {
    const stream = gemini[2] === 'streamGenerateContent';
    const route = pathRoute('gemini', gemini[1]!, stream, gemini[2] === 'batchEmbedContents' ? 'embeddings' : 'chat');
    // Without alt=sse Gemini streams one JSON array, a form the mock does not speak.
    if (stream && !route.problem && new URLSearchParams(query).get('alt') !== 'sse') {
      route.problem = 'mock: streamGenerateContent is served as SSE only; add ?alt=sse';
    }
    return route;
  }
  const bedrock = bedrockPath.exec(path);
  if (bedrock) return pathRoute('bedrock', bedrock[1]!, bedrock[2] === 'converse-stream');
  return undefined;
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
