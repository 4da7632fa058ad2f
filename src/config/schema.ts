import { z } from 'zod';
import { FailureKind } from '../core/failure-kind.js';
import { FAILURE_RULES } from '../core/failure-policy.js';
import { PROVIDER_CONNECTION_KEYS, PROVIDERS } from '../providers/provider-keys.js';
import { adminOidcSchema } from './admin-oidc-schema.js';


const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().nonnegative();

/** `host:port` of a sentinel; a bracketed IPv6 host too (`[::1]:26379`). */
const SENTINEL_ADDRESS = /^(?:\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+):(?:6553[0-5]|655[0-2]\d|65[0-4]\d{2}|6[0-4]\d{3}|[1-5]\d{4}|[1-9]\d{0,3})$/;

/** One Redis (`url`) or the primary a set of sentinels names (`sentinels` + `master`): exactly one of the two. */
const redisStateSchema = z
  .object({
    kind: z.literal('redis'),
    url: z.url({ protocol: /^rediss?$/, error: 'a redis:// or rediss:// URL' }).optional(),
    sentinels: z.array(z.string().regex(SENTINEL_ADDRESS, 'a sentinel as host:port')).min(1).optional(),
    master: z.string().min(1).optional(),
    password: z.string().min(1).optional(),
    key_prefix: z.string().min(1).default('switchyard:'),
  })
  .strict()
  .superRefine((state, context) => {
    const issue = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
    if (state.url !== undefined && state.sentinels !== undefined) issue('sentinels', 'give url (one Redis) or sentinels (Redis Sentinel), not both');
    else if (state.url === undefined && state.sentinels === undefined) context.addIssue({ code: 'custom', path: [], message: 'needs url (one Redis) or sentinels with master (Redis Sentinel)' });
    if (state.sentinels !== undefined && state.master === undefined) issue('master', 'required with sentinels: the name the sentinels monitor the primary under');
    if (state.sentinels === undefined && state.master !== undefined) issue('master', 'only with sentinels');
    if (state.url !== undefined && state.password !== undefined && new URL(state.url).password !== '') issue('password', 'the url holds a password already: give it in one place');
  });

/** How a node URL reaches the cluster; every node is reached alike (one scheme, one user and password). */
function clusterAccess(url: string): { tls: boolean; user: string; password: string; database: string } {
  const parsed = new URL(url);
  return { tls: parsed.protocol === 'rediss:', user: parsed.username, password: parsed.password, database: parsed.pathname.replace(/^\//, '') };
}

/**
 * A Redis Cluster, by one or more of its nodes (the client finds the others from them). The key
 * prefix takes no braces: the gateway's keys carry hash tags of their own, and a brace in front
 * of them would change which part of a key Redis hashes to place it.
 */
const redisClusterStateSchema = z
  .object({
    kind: z.literal('redis-cluster'),
    nodes: z.array(z.url({ protocol: /^rediss?$/, error: 'a redis:// or rediss:// URL' })).min(1, 'at least one node of the cluster, as redis://host:port'),
    password: z.string().min(1).optional(),
    key_prefix: z
      .string()
      .min(1)
      .regex(/^[^{}]*$/, "no { or } in a cluster's key prefix: the keys carry hash tags of their own")
      .default('switchyard:'),
  })
  .strict()
  .superRefine((state, context) => {
    const issue = (path: (string | number)[], message: string) => context.addIssue({ code: 'custom', path, message });
    // A node that is no URL has its issue already.
    if (!state.nodes.every((node) => URL.canParse(node))) return;
    const accesses = state.nodes.map(clusterAccess);
    const first = accesses[0];
    accesses.forEach((access, index) => {
      if (access.database !== '' && access.database !== '0') issue(['nodes', index], 'a cluster has database 0 only: no /N after host:port');
      if (!first || index === 0) return;
      if (access.tls !== first.tls) issue(['nodes', index], 'the same scheme as the first node: the cluster is reached with TLS (rediss://) or without, as a whole');
      else if (access.user !== first.user || access.password !== first.password) issue(['nodes', index], 'the same user and password as the first node (or none): every node of a cluster takes the same');
    });
    if (state.password !== undefined && first?.password) issue(['password'], 'the node urls hold a password already: give it in one place');
  });

/** The Responses API's WebSocket mode on `GET /v1/responses` (docs/coding-agents.md). */
const websocketSchema = z
  .object({
    /** Sockets open at once; one more is refused 503 at its handshake. */
    max_sockets: positiveInt.default(1024),
    /** A socket with no response running and no message for this long is closed (1000). */
    idle_s: positiveInt.default(600),
    /** A larger message closes the socket (1009); a `response.create` is a request body, so the default is `max_body_bytes`'. */
    max_message_bytes: positiveInt.default(10 * 1024 * 1024),
    /** A socket is closed (1000) this long after it opened, at the end of the response it is running: OpenAI's own limit is 60 minutes. */
    max_lifetime_s: positiveInt.default(3600),
  })
  .strict();

const serverSchema = z
  .object({
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(0).max(65_535).default(4000),
    max_in_flight: positiveInt.default(4096),
    max_body_bytes: positiveInt.default(10 * 1024 * 1024),
    /** A request body not wholly received this long after the gateway starts reading it gets 408. */
    body_timeout_ms: positiveInt.default(10_000),
    /** A request whose headers are not wholly received this long after its connection sent its first byte gets 408 and is closed. */
    // At most Node's own bound on a whole request (5 min), which the headers must fit in.
    headers_timeout_ms: positiveInt.max(300_000).default(10_000),
    /** On SIGTERM, how long requests in flight may take to finish before they are cut. */
    drain_ms: nonNegativeInt.default(10_000),
    /** `false`: an upgrade is refused with 426, and clients fall back to HTTP. */
    websocket: z.union([z.literal(false), websocketSchema]).default(websocketSchema.parse({})),
  })
  .strict();

export const connectionSchema = z
  .object({
    provider: z.enum(PROVIDERS),
    api_key: z.string().min(1).optional(),
    base_url: z.url({ protocol: /^https?$/ }).optional(),
    alternate_hosts: z.array(z.url({ protocol: /^https?$/ })).default([]),
    max_in_flight: positiveInt.default(256),
    /** Skip this connection (and every target on it) when it has no api_key, e.g. an unset env var. */
    optional: z.boolean().default(false),
    /**
     * `auto`: a caller speaking the target's own wire format is relayed — its body sent with only
     * the gateway's edits, the provider's answer passed back as sent; `off`: always translated.
     */
    relay: z.enum(['auto', 'off']).default('auto'),
    /** The keys of one provider or another (providers/provider-table.ts). */
    ...PROVIDER_CONNECTION_KEYS,
  })
  .strict();

const priceSchema = z
  .object({
    input_per_mtok: z.number().nonnegative(),
    output_per_mtok: z.number().nonnegative(),
    /** Cache reads and (5-minute) writes; unset, those tokens cost `input_per_mtok`. */
    cache_read_per_mtok: z.number().nonnegative().optional(),
    cache_write_per_mtok: z.number().nonnegative().optional(),
  })
  .strict();

const targetSchema = z
  .object({
    connection: z.string().min(1),
    model: z.string().min(1),
    /** Unset: inferred from the model catalog (routing/model-change.ts). */
    model_change: z.boolean().optional(),
    weight: z.number().positive().default(1),
    priority: z.number().int().default(0),
    price: priceSchema.optional(),
    context_window: positiveInt.optional(),
  })
  .strict();

const failureRuleSchema = z.enum(FAILURE_RULES);
const failureKindSchema = z.enum(
  Object.values(FailureKind).filter((kind) => kind !== 'ok') as [string, ...string[]],
);

export const timeoutsSchema = z
  .object({
    connect_ms: positiveInt.default(3_000),
    /** `auto`: learned per deployment from its recent first-token times (docs/lifecycle.md), within the two bounds below. */
    first_token_ms: z.union([positiveInt, z.literal('auto')], { error: 'expected a whole number of milliseconds above 0, or auto' }).default('auto'),
    first_token_min_ms: positiveInt.default(1_000),
    first_token_max_ms: positiveInt.default(30_000),
    idle_ms: positiveInt.default(30_000),
    total_ms: positiveInt.default(600_000),
    heartbeat_ms: positiveInt.default(10_000),
  })
  .strict();

const healthSchema = z
  .object({
    consecutive_failures: positiveInt.default(3),
    error_ratio: z.number().gt(0).max(1).default(0.5),
    min_requests: positiveInt.default(10),
    window_s: positiveInt.default(10),
    eject_base_s: z.number().positive().default(10),
    eject_max_s: z.number().positive().default(900),
    /** While ejected the gateway probes the deployment itself this often and readmits it at the first success; 0: off (caller trials only). */
    recovery_probe_s: z
      .number({ error: 'expected a number of seconds, or 0 for no recovery probes' })
      .nonnegative({ error: 'expected a number of seconds, or 0 for no recovery probes' })
      .default(2),
    persist_429_s: z.number().positive().optional(),
    probe_interval_s: z.number().positive().optional(),
  })
  .strict();

/** The ejection settings a route without a `health` block runs with. */
export const DEFAULT_ROUTE_HEALTH = healthSchema.parse({});

const commitSchema = z.union([
  z.enum(['first_token', 'complete']),
  z.object({ hold_ms: positiveInt }).strict(),
]);

/** `after_ms: auto`: the deployment's recent p95 first-token time (docs/lifecycle.md). */
const hedgeSchema = z
  .object({
    after_ms: z.union([positiveInt, z.literal('auto')], { error: 'expected a whole number of milliseconds above 0, or auto' }),
    max_extra: z.number({ error: 'expected 1, 2 or 3' }).int({ error: 'expected 1, 2 or 3' }).min(1, { error: 'expected 1, 2 or 3' }).max(3, { error: 'expected 1, 2 or 3' }).default(1),
  })
  .strict();

export const backoffSchema = z
  .object({
    base_ms: nonNegativeInt.default(200),
    max_ms: nonNegativeInt.default(2_000),
    jitter: z.enum(['full', 'none']).default('full'),
  })
  .strict()
  .default({ base_ms: 200, max_ms: 2_000, jitter: 'full' });

const IDLE_EXPECTED = 'expected a number of seconds above 0';

/** Session affinity (docs/sessions.md): on unless `off`; a binding lapses after `idle_s` without the session's requests. */
const affinitySchema = z.union(
  [z.literal('off'), z.object({ idle_s: z.number({ error: IDLE_EXPECTED }).positive({ error: IDLE_EXPECTED }).default(300) }).strict()],
  { error: 'expected off, or { idle_s: N }' },
);

const routeSchema = z
  .object({
    targets: z.array(targetSchema).min(1),
    /**
     * Other names callers send for this route (a client's own model names): exact names, and globs
     * (`*`, `?`) tried after every exact name and the direct form, in config order.
     */
    aliases: z.array(z.string().min(1).max(256)).default([]),
    strategy: z.enum(['priority', 'weighted', 'least_latency']).default('priority'),
    affinity: affinitySchema.default({ idle_s: 300 }),
    retries: z.number().int().min(0).max(3).default(1),
    backoff: backoffSchema,
    retry_after_wait_max_ms: nonNegativeInt.default(3_000),
    /** The output a budget reservation assumes when a request sets no max_tokens. */
    max_output_tokens: positiveInt.optional(),
    /** A key's budget that cannot pay the output cap: `clamp` lowers it to what is left, `refuse` answers 429. */
    budget_fit: z.enum(['clamp', 'refuse']).default('clamp'),
    on: z.partialRecord(failureKindSchema, failureRuleSchema).default({}),
    timeouts: timeoutsSchema.default(timeoutsSchema.parse({})),
    commit: commitSchema.default('first_token'),
    /** Off when omitted: a second target is started beside an attempt that has not committed after `after_ms`. */
    hedge: hedgeSchema.optional(),
    /** Responses API hosted tools: left out for targets that cannot run them, or those targets left out. */
    hosted_tools: z.enum(['drop', 'skip_target']).default('drop'),
    retry_budget: z
      .object({ ratio: z.number().min(0).max(1).default(0.1), min_per_second: z.number().nonnegative().default(5) })
      .strict()
      .default({ ratio: 0.1, min_per_second: 5 }),
    health: healthSchema.optional(),
  })
  .strict();

const canarySchema = z
  .object({
    /** 0: on demand only. */
    interval_s: z.number().nonnegative().default(86_400),
    /** JSON lines of `{"messages": [...], "reference": "..."}`, relative to the config file. */
    prompts: z.string().min(1),
    scorer: z.union([z.literal('similarity'), z.object({ grader_route: z.string().min(1) }).strict()]).default('similarity'),
    /** `auto`: the mean of the first three runs, kept in the store. */
    baseline: z.union([z.literal('auto'), z.number().min(0).max(1)]).default('auto'),
    max_drop: z.number().min(0).max(1).default(0.1),
  })
  .strict();

export const configSchema = z
  .object({
    server: serverSchema.default(serverSchema.parse({})),
    /** `connection/model` requests: whether they are served, and how many unconfigured deployments are remembered. */
    direct: z
      .object({ enabled: z.boolean().default(true), max_deployments: positiveInt.default(1_000) })
      .strict()
      .default({ enabled: true, max_deployments: 1_000 }),
    admin: z
      .object({
        token: z.string().min(1).optional(),
        /** Opt-in for local use: with no token configured, `serve` mints one and writes it here for the CLI. */
        token_file: z.string().min(1).optional(),
        /** Sign-in to the dashboard through the company's identity provider (admin-oidc-schema.ts). */
        oidc: adminOidcSchema.optional(),
      })
      .strict()
      .default({}),
    auth: z.object({ mode: z.enum(['keys', 'none']).default('keys') }).strict().default({ mode: 'keys' }),
    store: z
      .discriminatedUnion('kind', [
        z
          .object({
            kind: z.literal('sqlite'),
            path: z.string().min(1).default('./switchyard.db'),
            /** Records older than this are pruned in the background; spend rows are kept. */
            retention_days: z.number().positive().default(30),
            /** The most records a `:memory:` store keeps, oldest dropped first (a file is bounded by retention_days). */
            max_records: positiveInt.default(100_000),
          })
          .strict(),
        z
          .object({
            kind: z.literal('postgres'),
            url: z.url({ protocol: /^postgres(ql)?$/, error: 'a postgres:// or postgresql:// URL' }),
            retention_days: z.number().positive().default(30),
            /** Where records and spend rows wait while PostgreSQL is unreachable; processes may share it (each spills into files of its own). */
            spill_dir: z.string().min(1).default('.'),
          })
          .strict(),
      ])
      .default({ kind: 'sqlite', path: './switchyard.db', retention_days: 30, max_records: 100_000 }),
    /** Stored Responses API answers (`previous_response_id`, `GET /v1/responses/{id}`) are pruned past this. */
    responses: z.object({ retention_days: z.number().positive().default(30) }).strict().default({ retention_days: 30 }),
    /** The audit trail (SPEC §15): its oldest rows are pruned past this, apart from records. */
    audit: z.object({ retention_days: z.number().positive().default(400) }).strict().default({ retention_days: 400 }),
    state: z
      .discriminatedUnion('kind', [
        z.object({ kind: z.literal('memory') }).strict(),
        redisStateSchema,
        redisClusterStateSchema,
      ])
      .default({ kind: 'memory' }),
    health: z
      .object({ persist_429_s: z.number().positive().default(900), probe_interval_s: z.number().positive().default(300) })
      .strict()
      .default({ persist_429_s: 900, probe_interval_s: 300 }),
    alerts: z
      .object({
        webhook_url: z.url().optional(),
        ejected_for_s: z.number().positive().default(600),
        fallback_share: z.number().min(0).max(1).default(0.2),
        fallback_share_for_s: z.number().positive().default(300),
      })
      .strict()
      .default({ ejected_for_s: 600, fallback_share: 0.2, fallback_share_for_s: 300 }),
    /** The fallback drill (docs/drills-and-canaries.md): every `interval_s` (0: on demand only), over the routes matching `routes`. */
    drills: z
      .object({ interval_s: z.number().nonnegative().default(86_400), routes: z.array(z.string().min(1)).default(['*']) })
      .strict()
      .default({ interval_s: 86_400, routes: ['*'] }),
    /** Quality canaries, keyed by route name (docs/drills-and-canaries.md). */
    canaries: z.record(z.string().min(1), canarySchema).default({}),
    connections: z.record(z.string().min(1), connectionSchema).default({}),
    routes: z.record(z.string().min(1), routeSchema).default({}),
  })
  .strict();

export type Config = z.infer<typeof configSchema>;
export type ConnectionConfig = z.infer<typeof connectionSchema>;
export type RouteConfig = z.infer<typeof routeSchema>;
export type TargetConfig = z.infer<typeof targetSchema>;
export type TimeoutsConfig = z.infer<typeof timeoutsSchema>;
/** What one attempt's timers run on: a route's timeouts with `first_token_ms` settled to the number in force for that attempt. */
export type AttemptTimeouts = Pick<TimeoutsConfig, 'connect_ms' | 'idle_ms'> & { first_token_ms: number };
export type RouteHealthConfig = z.infer<typeof healthSchema>;
export type CommitPolicy = z.infer<typeof commitSchema>;
export type HedgeConfig = z.infer<typeof hedgeSchema>;
export type CanaryConfig = z.infer<typeof canarySchema>;
