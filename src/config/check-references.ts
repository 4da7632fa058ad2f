import type { Config, ConnectionConfig, ProviderName } from './schema.js';
import { formatPath } from './config-issue.js';
import { SUPPORTED_PROVIDERS } from '../providers/registry.js';

export interface ReferenceIssue {
  path: string;
  pathSegments: PropertyKey[];
  message: string;
}

/** Providers that cannot be called without a key of their own. */
const PROVIDERS_NEEDING_KEY = new Set(['openai', 'anthropic', 'gemini', 'azure-openai']);
/** Providers with no public default host. */
const PROVIDERS_NEEDING_BASE_URL = new Set(['openai-compatible', 'azure-openai']);

/** Keys that mean something to one provider only: elsewhere they are a mistake worth naming. */
const PROVIDER_ONLY_KEYS: readonly [keyof ConnectionConfig, ProviderName][] = [
  ['region', 'bedrock'],
  ['aws_access_key_id', 'bedrock'],
  ['aws_secret_access_key', 'bedrock'],
  ['aws_session_token', 'bedrock'],
  ['api_version', 'azure-openai'],
];

/** Bedrock takes an API key (bearer) or an IAM key pair (SigV4), and needs a region unless base_url names the host. */
function checkBedrock(name: string, connection: ConnectionConfig, add: (path: PropertyKey[], message: string) => void): void {
  const hasKeyPair = connection.aws_access_key_id !== undefined && connection.aws_secret_access_key !== undefined;
  if (connection.api_key === undefined && !hasKeyPair) {
    add(['connections', name, 'api_key'], 'provider bedrock needs api_key (a Bedrock API key) or aws_access_key_id with aws_secret_access_key');
  } else if ((connection.aws_access_key_id === undefined) !== (connection.aws_secret_access_key === undefined)) {
    add(['connections', name, connection.aws_access_key_id === undefined ? 'aws_access_key_id' : 'aws_secret_access_key'], 'aws_access_key_id and aws_secret_access_key go together');
  }
  if (connection.region === undefined && (hasKeyPair || connection.base_url === undefined)) {
    add(['connections', name, 'region'], 'required for provider bedrock (it names the host and signs the requests)');
  }
}

/** Checks that the schema alone cannot: names that refer to other entries, and per-provider needs. */
export function checkReferences(config: Config, unsetByPath: ReadonlyMap<string, string>): ReferenceIssue[] {
  const issues: ReferenceIssue[] = [];
  const add = (pathSegments: PropertyKey[], message: string) =>
    issues.push({ path: formatPath(pathSegments), pathSegments, message });

  for (const [name, connection] of Object.entries(config.connections)) {
    if (name.includes('/')) add(['connections', name], 'a connection name cannot contain "/" (it separates connection and model)');
    if (PROVIDERS_NEEDING_KEY.has(connection.provider) && connection.api_key === undefined) {
      const path = ['connections', name, 'api_key'];
      const variable = unsetByPath.get(formatPath(path));
      add(path, `required for provider ${connection.provider}${variable ? ` (environment variable ${variable} is not set)` : ''}`);
    }
    if (PROVIDERS_NEEDING_BASE_URL.has(connection.provider) && connection.base_url === undefined) {
      add(['connections', name, 'base_url'], `required for provider ${connection.provider}`);
    }
    if (!SUPPORTED_PROVIDERS.has(connection.provider)) {
      add(['connections', name, 'provider'], `provider ${connection.provider} is not available in this version (supported: ${[...SUPPORTED_PROVIDERS].join(', ')})`);
    }
    if (connection.dialect !== undefined && connection.provider !== 'mock') {
      add(['connections', name, 'dialect'], 'only a mock connection takes a dialect');
    }
    for (const [key, provider] of PROVIDER_ONLY_KEYS) {
      if (connection[key] !== undefined && connection.provider !== provider) add(['connections', name, key], `only ${provider} connections take ${key}`);
    }
    if (connection.provider === 'bedrock') checkBedrock(name, connection, add);
  }
  const known = Object.keys(config.connections);
  for (const [routeName, route] of Object.entries(config.routes)) {
    route.targets.forEach((target, index) => {
      if (!(target.connection in config.connections)) {
        const suggestion = closest(target.connection, known);
        add(
          ['routes', routeName, 'targets', index, 'connection'],
          `unknown connection "${target.connection}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`,
        );
      }
    });
    if (route.backoff.max_ms < route.backoff.base_ms) {
      add(['routes', routeName, 'backoff', 'max_ms'], `must be at least base_ms (${route.backoff.base_ms})`);
    }
  }
  return issues;
}

function closest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length]!;
}
