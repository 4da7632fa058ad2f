import type { ConnectionConfig } from '../config/schema.js';

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
