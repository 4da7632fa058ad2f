import type { Config, ConnectionConfig, TargetConfig } from '../config/schema.js';
import { serviceAccountKeyJson } from '../mock/service-account-key.js';
import { PROVIDER_TABLE } from '../providers/provider-table.js';
import type { UpstreamDialect } from '../providers/spec.js';
import { FAULTS } from './faults.js';
import type { Scenario } from './plan-scenarios.js';

/**
 * The config a scenario runs under: the operator's routes as written (policies, timeouts, health,
 * commit point, hedging, affinity) and its server limits, with every connection a mock connection
 * speaking its provider's wire, or the mock serving the provider's own API (Vertex) — so no
 * configured provider is called — and the target under test
 * (every target of its connection, for a fault of the whole account) acting out the fault. The
 * rest is what a throwaway gateway needs: records in memory, no keys, no drills or canaries, no
 * shared state, no alerts.
 */
export function scenarioConfig(config: Config, scenario: Scenario, mockUrl: string): Record<string, unknown> {
  const fault = FAULTS[scenario.fault];
  const dialectOf = (target: TargetConfig) => {
    const connection = config.connections[target.connection]!;
    return PROVIDER_TABLE[connection.provider].mockDialect(connection, target.model);
  };
  // A connection whose targets speak two wires gets a stand-in for each.
  const dialects = new Map<string, Set<UpstreamDialect | null>>();
  for (const route of Object.values(config.routes)) {
    for (const target of route.targets) dialects.set(target.connection, (dialects.get(target.connection) ?? new Set()).add(dialectOf(target)));
  }
  const standIn = (connection: string, dialect: UpstreamDialect | null) => (dialects.get(connection)!.size === 1 ? connection : `${connection}~${dialect}`);
  const connections = Object.fromEntries(
    [...dialects].flatMap(([name, spoken]) => {
      const connection = config.connections[name]!;
      return [...spoken].map((dialect) => [
        standIn(name, dialect),
        dialect === null ? servedAsItself(connection, mockUrl) : { provider: 'mock', dialect, max_in_flight: connection.max_in_flight },
      ]);
    }),
  );
  const routes = Object.fromEntries(
    Object.entries(config.routes).map(([name, route]) => [
      name,
      {
        ...route,
        targets: route.targets.map((target, position) => {
          const faulted = fault.connectionWide ? target.connection === scenario.connection : name === scenario.route && position === scenario.position;
          return { ...target, connection: standIn(target.connection, dialectOf(target)), model: faulted ? withDirectives(target.model, fault.directives) : target.model };
        }),
      },
    ]),
  );
  return {
    server: { ...config.server, websocket: false },
    health: config.health,
    direct: config.direct,
    store: { kind: 'sqlite', path: ':memory:' },
    auth: { mode: 'none' },
    drills: { interval_s: 0, routes: [] },
    connections,
    routes,
  };
}

/**
 * A connection the mock serves as its provider's own API (Vertex: the platform's errors are not
 * its publishers' own), at the mock's path for it, with a service-account key of the rehearsal's
 * whose tokens the mock's `/token` issues.
 */
function servedAsItself(connection: ConnectionConfig, mockUrl: string): Record<string, unknown> {
  return {
    provider: connection.provider,
    project: connection.project,
    location: connection.location,
    base_url: `${mockUrl}${PROVIDER_TABLE[connection.provider].mockPath ?? ''}`,
    credentials_json: serviceAccountKeyJson(`${mockUrl}/token`, 'rehearsal@switchyard-rehearsal.iam.gserviceaccount.com'),
    max_in_flight: connection.max_in_flight,
  };
}

/** A model with the fault's directives added to any it has. */
function withDirectives(model: string, directives: string): string {
  return model.includes('?') ? `${model}&${directives}` : `${model}?${directives}`;
}
