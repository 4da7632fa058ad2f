import type { Config } from './schema.js';

const bySnapshot = new WeakMap<Config, ReadonlySet<string>>();

/** Every secret a config holds (provider keys, the admin token, the identity provider's client secret, the Redis password): never to appear in output. */
export function knownSecrets(config: Config): ReadonlySet<string> {
  let secrets = bySnapshot.get(config);
  if (!secrets) {
    const found = new Set<string>();
    if (config.admin.token) found.add(config.admin.token);
    if (config.admin.oidc) found.add(config.admin.oidc.client_secret);
    if (config.state.kind !== 'memory' && config.state.password) found.add(config.state.password);
    const redisUrls = config.state.kind === 'redis-cluster' ? config.state.nodes : config.state.kind === 'redis' && config.state.url ? [config.state.url] : [];
    for (const url of redisUrls) {
      const password = decodeURIComponent(new URL(url).password);
      if (password) found.add(password);
    }
    for (const connection of Object.values(config.connections)) {
      for (const secret of [connection.api_key, connection.aws_secret_access_key, connection.aws_session_token, connection.credentials_json]) if (secret) found.add(secret);
    }
    secrets = found;
    bySnapshot.set(config, secrets);
  }
  return secrets;
}
