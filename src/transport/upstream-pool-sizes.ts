import type { Config, ConnectionConfig } from '../config/schema.js';
import { baseUrlFor } from '../providers/registry.js';

/**
 * How many sockets each upstream origin's pool may open: the sum of `max_in_flight` over every
 * connection that sends there (its base URL and its alternate hosts). Load shedding already
 * caps each connection at its `max_in_flight`, so a pool this large never has to hold a request
 * back: the gateway queues nowhere, not even inside the HTTP client.
 */
export function upstreamPoolSizes(
  connections: Readonly<Record<string, ConnectionConfig>>,
  baseUrlOf: (connection: ConnectionConfig) => string | undefined,
): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const connection of Object.values(connections)) {
    const baseUrl = baseUrlOf(connection);
    const origins = new Set([baseUrl, ...connection.alternate_hosts].flatMap((url) => (url === undefined ? [] : [new URL(url).origin])));
    for (const origin of origins) sizes.set(origin, (sizes.get(origin) ?? 0) + connection.max_in_flight);
  }
  return sizes;
}

/**
 * The pool sizes of the config in force, worked out again only when the config (a reload
 * that changes a connection's `max_in_flight` resizes its origin's pool) or the mock's URL changes.
 */
export function poolSizesFollowingConfig(config: () => Config, mockUrl: () => string | undefined): () => ReadonlyMap<string, number> {
  let last: { config: Config; mockUrl: string | undefined; sizes: ReadonlyMap<string, number> } | undefined;
  return () => {
    const current = config();
    if (last?.config !== current || last.mockUrl !== mockUrl()) {
      const url = mockUrl();
      // A connection with no usable base URL yet (the in-process mock still starting) sends nowhere.
      const baseUrlOf = (connection: ConnectionConfig) => {
        try {
          return baseUrlFor(connection, url);
        } catch {
          return undefined;
        }
      };
      last = { config: current, mockUrl: url, sizes: upstreamPoolSizes(current.connections, baseUrlOf) };
    }
    return last.sizes;
  };
}
