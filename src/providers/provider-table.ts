import { z } from 'zod';
import { anthropicAdapter } from './anthropic/adapter.js';
import { AZURE_DEFAULT_API_VERSION, createAzureOpenAiAdapter } from './azure-openai/adapter.js';
import { bedrockAdapter } from './bedrock/adapter.js';
import { geminiAdapter } from './gemini/adapter.js';
import { createOpenAiAdapter, openAiAdapter } from './openai/adapter.js';
import { createCompatibleAdapter } from './openai-compatible/adapter.js';
import { resolveCompatibleHost } from './openai-compatible/hosts.js';
import { createOpenAiResponsesAdapter } from './openai-responses/adapter.js';
import type { ProviderAdapter, UpstreamDialect } from './spec.js';

/**
 * Every provider, described once: the connection keys only it takes, what it needs, its adapter,
 * default base URL, credential style, where the in-process mock serves its wire, its tracing name
 * and its capabilities. Config validation, `check-config`, the credential step, telemetry and the
 * registry read this table; adding a provider is adding a row here and its adapter folder
 * (docs/architecture.md, "Adding a provider").
 */

const UPSTREAM_DIALECTS = ['openai', 'openai-responses', 'anthropic', 'gemini', 'bedrock'] as const satisfies readonly UpstreamDialect[];

const BEDROCK_KEYS = {
  /** The AWS region (`us-east-1`): the default base_url and the SigV4 scope. */
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'an AWS region such as us-east-1').optional(),
  /** Without an API key: IAM credentials, requests signed with SigV4 per attempt. */
  aws_access_key_id: z.string().min(1).optional(),
  aws_secret_access_key: z.string().min(1).optional(),
  aws_session_token: z.string().min(1).optional(),
};
const AZURE_OPENAI_KEYS = {
  /** The `api-version` query parameter. */
  api_version: z.string().min(1).optional(),
};
const MOCK_KEYS = {
  /** Which wire format the mock speaks. */
  dialect: z.enum(UPSTREAM_DIALECTS).optional(),
};

/** The keys some providers take and others do not, as config validates them (config/schema.ts). */
export const PROVIDER_CONNECTION_KEYS = { ...BEDROCK_KEYS, ...AZURE_OPENAI_KEYS, ...MOCK_KEYS };

type ProviderKeys = { [K in keyof typeof PROVIDER_CONNECTION_KEYS]?: z.output<(typeof PROVIDER_CONNECTION_KEYS)[K]> };

/** What the table reads of a connection (config's `ConnectionConfig` is one). */
export type ConnectionFacts = ProviderKeys & { provider: ProviderName; api_key?: string; base_url?: string };

/** How a connection's secret goes on a request (credentials/apply-credentials.ts acts on it). */
export type CredentialStyle =
  /** `api_key` in a header, after `scheme` when there is one. */
  | { kind: 'header'; header: string; scheme?: string }
  /** SigV4 with the IAM key pair when the connection has one, else `api_key` as a bearer token. */
  | { kind: 'aws' };

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
  /** The adapter for one of its models. */
  adapter(connection: ConnectionFacts, model: string): ProviderAdapter;
  credential(connection: ConnectionFacts): CredentialStyle;
  /** Where the in-process mock serves this provider's wire, below the mock's root; null: it does not. */
  readonly mockPath: string | null;
  /** `gen_ai.provider.name` of the OpenTelemetry GenAI conventions. */
  readonly tracingName: string;
  readonly capabilities: {
    /** It serves `/v1/embeddings` callers (for some or all of its models). */
    embeddings: boolean;
    /** It serves Responses callers on its own Responses API rather than a translation. */
    responsesApi: boolean;
  };
  /** What its keys' schemas cannot see alone. */
  check?(connection: ConnectionFacts): ConnectionIssue[];
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
    tracingName: 'openai-compatible',
    capabilities: { embeddings: true, responsesApi: false },
  },
  mock: {
    keys: MOCK_KEYS,
    needs: { apiKey: false, baseUrl: false },
    // Without a base_url a mock connection is served by the gateway's in-process mock.
    defaultBaseUrl: none,
    adapter: (connection) => MOCK_ADAPTERS[connection.dialect ?? 'openai'],
    credential: (connection): CredentialStyle => TABLE[MOCKED_PROVIDER[connection.dialect ?? 'openai']].credential(),
    mockPath: null,
    tracingName: 'mock',
    capabilities: { embeddings: true, responsesApi: true },
  },
} satisfies Record<string, ProviderEntry>;

/** Providers a connection can speak to; `mock` is the built-in fault-injecting provider. */
export type ProviderName = keyof typeof TABLE;
export const PROVIDERS = Object.keys(TABLE) as [ProviderName, ...ProviderName[]];
export const PROVIDER_TABLE: Readonly<Record<ProviderName, ProviderEntry>> = TABLE;

/** Where the in-process mock serves a mock connection's dialect, below its root. */
export function mockPathOf(dialect: UpstreamDialect | undefined): string {
  return TABLE[MOCKED_PROVIDER[dialect ?? 'openai']].mockPath;
}
