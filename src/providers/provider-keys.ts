import { z } from 'zod';
import type { UpstreamDialect } from './spec.js';

/**
 * The providers' names and the connection keys only some of them take: the data config validates
 * a connection by (config/schema.ts). The rest of what describes a provider is its row in
 * provider-table.ts, which must have one for every name here. Kept apart from the table so that
 * config, which the dashboard's build reaches, does not load the adapters.
 */

/** Providers a connection can speak to; `mock` is the built-in fault-injecting provider. */
export const PROVIDERS = ['openai', 'anthropic', 'gemini', 'bedrock', 'azure-openai', 'openai-compatible', 'vertex', 'mock'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

const UPSTREAM_DIALECTS = ['openai', 'openai-responses', 'anthropic', 'gemini', 'bedrock'] as const satisfies readonly UpstreamDialect[];

export const BEDROCK_KEYS = {
  /** The AWS region (`us-east-1`): the default base_url and the SigV4 scope. */
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'an AWS region such as us-east-1').optional(),
  /** Without an API key: IAM credentials, requests signed with SigV4 per attempt. */
  aws_access_key_id: z.string().min(1).optional(),
  aws_secret_access_key: z.string().min(1).optional(),
  aws_session_token: z.string().min(1).optional(),
};
export const AZURE_OPENAI_KEYS = {
  /** The `api-version` query parameter. */
  api_version: z.string().min(1).optional(),
};
export const VERTEX_KEYS = {
  /** The Google Cloud project and the location (a region such as `us-east5`, or `global`) requests go to. */
  project: z.string().regex(/^[a-z][a-z0-9.:-]*[a-z0-9]$/, 'a Google Cloud project id such as my-project').optional(),
  location: z.string().regex(/^(global|[a-z]+(-[a-z]+\d+)?)$/, 'a Google Cloud region such as us-east5, or global').optional(),
  /** A service-account key file; or the key's JSON itself (`${env:VERTEX_SA_KEY}`). Neither: Application Default Credentials. */
  credentials_file: z.string().min(1).optional(),
  credentials_json: z.string().min(1).optional(),
};
export const MOCK_KEYS = {
  /** Which wire format the mock speaks. */
  dialect: z.enum(UPSTREAM_DIALECTS).optional(),
};

/** The keys some providers take and others do not, as config validates them (config/schema.ts). */
export const PROVIDER_CONNECTION_KEYS = { ...BEDROCK_KEYS, ...AZURE_OPENAI_KEYS, ...VERTEX_KEYS, ...MOCK_KEYS };

type ProviderKeys = { [K in keyof typeof PROVIDER_CONNECTION_KEYS]?: z.output<(typeof PROVIDER_CONNECTION_KEYS)[K]> };

/** What the provider table reads of a connection (config's `ConnectionConfig` is one). */
export type ConnectionFacts = ProviderKeys & { provider: ProviderName; api_key?: string; base_url?: string };
