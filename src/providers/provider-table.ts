import type { z } from 'zod';
import { anthropicAdapter } from './anthropic/adapter.js';
import { AZURE_DEFAULT_API_VERSION, createAzureOpenAiAdapter } from './azure-openai/adapter.js';
import { bedrockAdapter } from './bedrock/adapter.js';
import { geminiAdapter } from './gemini/adapter.js';
import { createOpenAiAdapter, openAiAdapter } from './openai/adapter.js';
import { createCompatibleAdapter } from './openai-compatible/adapter.js';
import { resolveCompatibleHost } from './openai-compatible/hosts.js';
import { createOpenAiResponsesAdapter } from './openai-responses/adapter.js';
import { AZURE_OPENAI_KEYS, BEDROCK_KEYS, MOCK_KEYS, VERTEX_KEYS, type ConnectionFacts, type ProviderName } from './provider-keys.js';
import type { ProviderAdapter, UpstreamDialect } from './spec.js';
import { vertexAdapterFor } from './vertex/adapter.js';
import { checkVertex } from './vertex-connection.js';

/**
 * Every provider, described once: the connection keys only it takes, what it needs, its adapter,
 * default base URL, credential style, where the in-process mock serves its wire, its tracing name
 * and its capabilities. Config validation, `check-config`, the credential step, telemetry and the
 * registry read this table; adding a provider is adding a row here and its adapter folder
 * (docs/architecture.md, "Adding a provider").
 */

/** How a connection's secret goes on a request (credentials/apply-credentials.ts acts on it). */
export type CredentialStyle =
  /** `api_key` in a header, after `scheme` when there is one. */
  | { kind: 'header'; header: string; scheme?: string }
  /** SigV4 with the IAM key pair when the connection has one, else `api_key` as a bearer token. */
  | { kind: 'aws' }
  /** An OAuth access token of the connection's service-account key, or of Application Default Credentials, as a bearer. */
  | { kind: 'google' };

export type { ConnectionFacts, ProviderName } from './provider-keys.js';
export { PROVIDER_CONNECTION_KEYS, PROVIDERS } from './provider-keys.js';

/** A finding about a connection's keys taken together (their schemas check each alone). */
export interface ConnectionIssue {
  key: string;
  message: string;
}

export interface ProviderEntry {
  /** Connection keys only this provider takes; on another provider they are named as a mistake. */
  readonly keys: Readonly<Record<string, z.ZodType>>;
  /** It cannot be called without an `api_key` of its own, or without a `base_url` (it has no public host). */
  readonly needs: { apiKey: boolean; baseUrl: boolean };
  /** Its public endpoint, in its SDK's convention, when the connection's keys name one. */
  defaultBaseUrl(connection: ConnectionFacts): string | undefined;
  /** What follows the base URL (default or written) on every request of the connection (Vertex's project and location). */
  pathBelowBase?(connection: ConnectionFacts): string;
  /** The adapter for one of its models. */
  adapter(connection: ConnectionFacts, model: string): ProviderAdapter;
  credential(connection: ConnectionFacts): CredentialStyle;
  /** Where the in-process mock serves this provider's wire, below the mock's root; null: it does not. */
  readonly mockPath: string | null;
  /**
   * The mock dialect that stands in for one of its models when a rehearsal plays its faults
   * (rehearsal/); null: the mock serves the provider's own API at `mockPath`, which stands in itself.
   */
  mockDialect(connection: ConnectionFacts, model: string): UpstreamDialect | null;
  /** `gen_ai.provider.name` of the OpenTelemetry GenAI conventions. */
  readonly tracingName: string;
  readonly capabilities: {
    /** It serves `/v1/embeddings` callers (for some or all of its models). */
    embeddings: boolean;
    /** It serves Responses callers on its own Responses API rather than a translation. */
    responsesApi: boolean;
  };
  /** What its keys' schemas cannot see alone; `readText` reads a file a key names (config load does the I/O). */
  check?(connection: ConnectionFacts, readText: (path: string) => string): ConnectionIssue[];
}

const bearer: CredentialStyle = { kind: 'header', header: 'authorization', scheme: 'Bearer' };

/** Adapters that depend on a connection setting, made once per distinct setting. */
const configuredAdapters = new Map<string, ProviderAdapter>();

function configured(key: string, create: () => ProviderAdapter): ProviderAdapter {
  let adapter = configuredAdapters.get(key);
  if (!adapter) {
    adapter = create();
    configuredAdapters.set(key, adapter);
  }
  return adapter;
}

/** api.openai.com: Chat Completions, and its own Responses API for Responses callers. */
const openAiWithResponses: ProviderAdapter = {
  ...openAiAdapter,
  responses: createOpenAiResponsesAdapter({ origin: 'openai', path: '/responses', promptCacheKey: true }),
};

/** What a mock connection speaks, by its dialect. */
const MOCK_ADAPTERS: Readonly<Record<UpstreamDialect, ProviderAdapter>> = {
  // A generic host's rules: api.openai.com's without its `prompt_cache_key`.
  openai: createOpenAiAdapter({ dropParams: ['max_tokens'] }),
  'openai-responses': createOpenAiResponsesAdapter({ origin: 'mock', path: '/responses', promptCacheKey: false }),
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
  bedrock: bedrockAdapter,
};

/** The provider whose wire each mock dialect speaks: its key header and the mock's path for it. */
const MOCKED_PROVIDER: Readonly<Record<UpstreamDialect, 'openai' | 'anthropic' | 'gemini' | 'bedrock'>> = {
  openai: 'openai',
  'openai-responses': 'openai',
  anthropic: 'anthropic',
  gemini: 'gemini',
  bedrock: 'bedrock',
};

/** Bedrock takes an API key (bearer) or an IAM key pair (SigV4), and needs a region unless base_url names the host. */
function checkBedrock(connection: ConnectionFacts): ConnectionIssue[] {
  const issues: ConnectionIssue[] = [];
  const hasKeyPair = connection.aws_access_key_id !== undefined && connection.aws_secret_access_key !== undefined;
  if (connection.api_key === undefined && !hasKeyPair) {
    issues.push({ key: 'api_key', message: 'provider bedrock needs api_key (a Bedrock API key) or aws_access_key_id with aws_secret_access_key' });
  } else if ((connection.aws_access_key_id === undefined) !== (connection.aws_secret_access_key === undefined)) {
    issues.push({ key: connection.aws_access_key_id === undefined ? 'aws_access_key_id' : 'aws_secret_access_key', message: 'aws_access_key_id and aws_secret_access_key go together' });
  }
  if (connection.region === undefined && (hasKeyPair || connection.base_url === undefined)) {
    issues.push({ key: 'region', message: 'required for provider bedrock (it names the host and signs the requests)' });
  }
  return issues;
}

const NO_KEYS = {};
const none = () => undefined;

const TABLE = {
  openai: {
    keys: NO_KEYS,
    needs: { apiKey: true, baseUrl: false },
    defaultBaseUrl: () => 'https://api.openai.com/v1',
    adapter: () => openAiWithResponses,
    credential: () => bearer,
    mockPath: '/v1',
    mockDialect: () => 'openai',
    tracingName: 'openai',
    capabilities: { embeddings: true, responsesApi: true },
  },
  anthropic: {
    keys: NO_KEYS,
    needs: { apiKey: true, baseUrl: false },
    defaultBaseUrl: () => 'https://api.anthropic.com',
    adapter: () => anthropicAdapter,
    credential: () => ({ kind: 'header', header: 'x-api-key' }),
    mockPath: '',
    mockDialect: () => 'anthropic',
    tracingName: 'anthropic',
    capabilities: { embeddings: false, responsesApi: false },
  },
  gemini: {
    keys: NO_KEYS,
    needs: { apiKey: true, baseUrl: false },
    defaultBaseUrl: () => 'https://generativelanguage.googleapis.com/v1beta',
    adapter: () => geminiAdapter,
    credential: () => ({ kind: 'header', header: 'x-goog-api-key' }),
    mockPath: '/v1beta',
    mockDialect: () => 'gemini',
    tracingName: 'gcp.gemini',
    capabilities: { embeddings: true, responsesApi: false },
  },
  bedrock: {
    keys: BEDROCK_KEYS,
    needs: { apiKey: false, baseUrl: false },
    defaultBaseUrl: (connection) => (connection.region === undefined ? undefined : `https://bedrock-runtime.${connection.region}.amazonaws.com`),
    adapter: () => bedrockAdapter,
    credential: () => ({ kind: 'aws' }),
    mockPath: '',
    mockDialect: () => 'bedrock',
    tracingName: 'aws.bedrock',
    capabilities: { embeddings: false, responsesApi: false },
    check: checkBedrock,
  },
  'azure-openai': {
    keys: AZURE_OPENAI_KEYS,
    needs: { apiKey: true, baseUrl: true },
    defaultBaseUrl: none,
    adapter: (connection) => {
      const apiVersion = connection.api_version ?? AZURE_DEFAULT_API_VERSION;
      return configured(`azure ${apiVersion}`, () => createAzureOpenAiAdapter(apiVersion));
    },
    credential: () => ({ kind: 'header', header: 'api-key' }),
    mockPath: null,
    mockDialect: () => 'openai',
    tracingName: 'azure.ai.openai',
    capabilities: { embeddings: true, responsesApi: true },
  },
  'openai-compatible': {
    keys: NO_KEYS,
    needs: { apiKey: false, baseUrl: true },
    defaultBaseUrl: none,
    adapter: (connection) => {
      const baseUrl = connection.base_url ?? '';
      return configured(`compatible ${baseUrl}`, () => createCompatibleAdapter(baseUrl));
    },
    credential: (connection): CredentialStyle => {
      const auth = resolveCompatibleHost(connection.base_url ?? '').auth;
      return 'scheme' in auth ? { kind: 'header', header: auth.header, scheme: auth.scheme } : { kind: 'header', header: auth.header };
    },
    mockPath: '/v1',
    mockDialect: () => 'openai',
    tracingName: 'openai-compatible',
    capabilities: { embeddings: true, responsesApi: false },
  },
  vertex: {
    keys: VERTEX_KEYS,
    needs: { apiKey: false, baseUrl: false },
    defaultBaseUrl: ({ location }) => (location === undefined ? undefined : location === 'global' ? 'https://aiplatform.googleapis.com/v1' : `https://${location}-aiplatform.googleapis.com/v1`),
    pathBelowBase: ({ project = '', location = '' }) => `/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}`,
    // Claude models on Anthropic's publisher, the rest on Google's.
    adapter: (_connection, model) => vertexAdapterFor(model),
    credential: () => ({ kind: 'google' }),
    mockPath: '/v1',
    // Its platform answers quota, sign-in and capacity in google.rpc form for either publisher.
    mockDialect: () => null,
    tracingName: 'gcp.vertex_ai',
    capabilities: { embeddings: true, responsesApi: false },
    check: checkVertex,
  },
  mock: {
    keys: MOCK_KEYS,
    needs: { apiKey: false, baseUrl: false },
    // Without a base_url a mock connection is served by the gateway's in-process mock.
    defaultBaseUrl: none,
    adapter: (connection) => MOCK_ADAPTERS[connection.dialect ?? 'openai'],
    credential: (connection): CredentialStyle => TABLE[MOCKED_PROVIDER[connection.dialect ?? 'openai']].credential(),
    mockPath: null,
    mockDialect: (connection) => connection.dialect ?? 'openai',
    tracingName: 'mock',
    capabilities: { embeddings: true, responsesApi: true },
  },
} satisfies Record<ProviderName, ProviderEntry>;

export const PROVIDER_TABLE: Readonly<Record<ProviderName, ProviderEntry>> = TABLE;

/** Where the in-process mock serves a mock connection's dialect, below its root. */
export function mockPathOf(dialect: UpstreamDialect | undefined): string {
  return TABLE[MOCKED_PROVIDER[dialect ?? 'openai']].mockPath;
}
