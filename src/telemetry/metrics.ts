import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const LATENCY_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
const WAIT_BUCKETS_S = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** What the sink writers hold back, read at each scrape: in their spill files, and dropped (buffer full, spill unwritable, after close). */
export interface SinkCounts {
  spilled(): SinkCount;
  dropped(): SinkCount;
}

/** Request records, spend rows and audit events (config reloads, runs, sign-ins: the rows stored with no change beside them). */
export interface SinkCount {
  records: number;
  spend: number;
  audit: number;
}

const SINK_KINDS = ['records', 'spend', 'audit'] as const;

/**
 * The gateway's Prometheus metrics (docs/operations.md). Label values are bounded: kinds and statuses are
 * closed sets; routes and targets come from the config (direct `connection/model` requests are
 * labelled by connection only).
 */
export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'switchyard_requests_total',
    help: 'Requests answered, by route, outcome status and origin (caller, or the gateway\'s own drill, canary, probe)',
    labelNames: ['route', 'status', 'origin'] as const,
    registers: [this.registry],
  });
  readonly attempts = new Counter({
    name: 'switchyard_attempts_total',
    help: 'Upstream attempts by failure kind (ok for success)',
    labelNames: ['kind', 'origin'] as const,
    registers: [this.registry],
  });
  readonly attemptsPerRequest = new Histogram({
    name: 'switchyard_attempts_per_request',
    help: 'Upstream attempts made for one request',
    labelNames: ['origin'] as const,
    buckets: [0, 1, 2, 3, 4, 6, 8, 12],
    registers: [this.registry],
  });
  readonly addedLatency = new Histogram({
    name: 'switchyard_added_latency_seconds',
    help: 'Gateway time per request: total latency minus time spent waiting on upstreams',
    labelNames: ['origin'] as const,
    buckets: LATENCY_BUCKETS_S,
    registers: [this.registry],
  });
  readonly firstToken = new Histogram({
    name: 'switchyard_first_token_seconds',
    help: 'Time from request arrival to the first content sent to the caller',
    labelNames: ['origin'] as const,
    buckets: WAIT_BUCKETS_S,
    registers: [this.registry],
  });
  readonly deadlineRemaining = new Histogram({
    name: 'switchyard_deadline_remaining_seconds',
    help: 'Time left before the caller deadline when an attempt is dispatched',
    labelNames: ['origin'] as const,
    buckets: WAIT_BUCKETS_S,
    registers: [this.registry],
  });
  readonly failovers = new Counter({
    name: 'switchyard_failovers_total',
    help: 'Moves from one target to the next within a request',
    labelNames: ['from', 'to', 'origin'] as const,
    registers: [this.registry],
  });
  readonly retryBudgetExhausted = new Counter({
    name: 'switchyard_retry_budget_exhausted_total',
    help: 'Same-target retries not made because the route retry budget was spent',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  readonly hedges = new Counter({
    name: 'switchyard_hedges_total',
    help: 'Hedged attempts, by how their race ended: won (the hedge answered), lost (another attempt answered), unanswered (no attempt did)',
    labelNames: ['route', 'outcome', 'origin'] as const,
    registers: [this.registry],
  });
  readonly streamInterrupted = new Counter({
    name: 'switchyard_stream_interrupted_total',
    help: 'Committed streams that failed after content reached the caller',
    labelNames: ['route', 'origin'] as const,
    registers: [this.registry],
  });
  readonly malformedEvents = new Counter({
    name: 'switchyard_malformed_events_total',
    help: 'Upstream stream events skipped because they could not be parsed',
    labelNames: ['origin'] as const,
    registers: [this.registry],
  });
  readonly callerRetries = new Counter({
    name: 'switchyard_caller_retries_total',
    help: 'Retries the caller layered on top of the gateway (x-stainless-retry-count > 0)',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });

  readonly deploymentState = new Gauge({
    name: 'switchyard_deployment_state',
    help: 'Health state of each deployment (connection/model): 1 for its current state, 0 for the others',
    labelNames: ['deployment', 'state'] as const,
    registers: [this.registry],
  });
  readonly ejections = new Counter({
    name: 'switchyard_ejections_total',
    help: 'Times a deployment was ejected by its circuit breaker',
    labelNames: ['deployment'] as const,
    registers: [this.registry],
  });
  readonly structuralFaults = new Counter({
    name: 'switchyard_structural_faults_total',
    help: 'Times a deployment entered a structural fault (quota, credential, not found, persistent 429)',
    labelNames: ['deployment', 'cause'] as const,
    registers: [this.registry],
  });
  readonly probes = new Counter({
    name: 'switchyard_probes_total',
    help: 'Active probes of structurally faulted and of ejected deployments, by outcome kind',
    labelNames: ['deployment', 'kind'] as const,
    registers: [this.registry],
  });
  readonly canaryScore = new Gauge({
    name: 'switchyard_canary_score',
    help: "The latest quality canary run's mean score (0..1), by route",
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  readonly ratelimitRemaining = new Gauge({
    name: 'switchyard_ratelimit_remaining',
    help: 'Remaining provider rate limit from the latest x-ratelimit-* / anthropic-ratelimit-* headers',
    labelNames: ['deployment', 'limit'] as const,
    registers: [this.registry],
  });

  readonly spend = new Counter({
    name: 'switchyard_spend_usd_total',
    help: 'Provider spend in USD by route, target and key (every billed attempt, failed ones included)',
    labelNames: ['route', 'target', 'key'] as const,
    registers: [this.registry],
  });
  readonly cacheTokens = new Counter({
    name: 'switchyard_cache_tokens_total',
    help: 'Prompt tokens read from (kind="read") and written to (kind="write") providers\' prompt caches, by deployment (connection/model)',
    labelNames: ['deployment', 'kind'] as const,
    registers: [this.registry],
  });
  readonly idempotentReplays = new Counter({
    name: 'switchyard_idempotent_replays_total',
    help: 'Requests answered from a stored response under their Idempotency-Key (no new generation)',
    registers: [this.registry],
  });
  readonly budgetRefusals = new Counter({
    name: 'switchyard_budget_refusals_total',
    help: 'Requests refused because the key budget could not cover them',
    registers: [this.registry],
  });
  readonly limitRefusals = new Counter({
    name: 'switchyard_limit_refusals_total',
    help: 'Requests refused by a key rate limit',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });
  readonly spillDepth: Gauge<'kind'> = new Gauge({
    name: 'switchyard_spill_depth',
    help: "Records, spend rows and audit events in this process's spill files (its own and those it adopted), waiting for the store to come back",
    labelNames: ['kind'] as const,
    registers: [this.registry],
    collect: () => {
      const depth = this.#sinks?.spilled();
      if (!depth) return;
      for (const kind of SINK_KINDS) this.spillDepth.set({ kind }, depth[kind]);
    },
  });
  readonly spillAdopted = new Counter({
    name: 'switchyard_spill_adopted_total',
    help: 'Records, spend rows and audit events this process took over from the spill files of gateway processes that are gone (crashed, or stopped while the store refused writes), to replay',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly sinkDropped: Counter<'kind'> = new Counter({
    name: 'switchyard_sink_dropped_total',
    help: 'Records, spend rows and audit events lost before reaching the store or the spill file (each loss is also logged); 0 unless the buffer overflowed or the spill file could not be written',
    labelNames: ['kind'] as const,
    registers: [this.registry],
    collect: () => {
      const dropped = this.#sinks?.dropped();
      if (!dropped) return;
      // The writers' counts never go down: the counter is set to them at each scrape.
      this.sinkDropped.reset();
      for (const kind of SINK_KINDS) this.sinkDropped.inc({ kind }, dropped[kind]);
    },
  });
  readonly recordsPruned = new Counter({
    name: 'switchyard_records_pruned_total',
    help: 'Request records deleted by the retention pruner (store.retention_days); spend rows are never pruned',
    registers: [this.registry],
  });
  readonly stateDegraded = new Gauge({
    name: 'switchyard_state_degraded',
    help: 'With state.kind redis or redis-cluster: 1 while Redis (on a cluster: any primary) does not answer and this replica serves on local state, else 0',
    registers: [this.registry],
  });
  readonly fallbackShare = new Gauge({
    name: 'switchyard_fallback_share',
    help: "Share of a route's answers in the last minute served by a target other than its first",
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  readonly drillFailures = new Counter({
    name: 'switchyard_drill_failures_total',
    help: 'Failed fallback-drill steps, by route, target (connection/model) and failure kind',
    labelNames: ['route', 'target', 'kind'] as const,
    registers: [this.registry],
  });
  readonly affinityEvictions = new Counter({
    name: 'switchyard_affinity_evictions_total',
    help: "Session bindings dropped from this replica's memory, before their idle time was up, to keep within its bound",
    registers: [this.registry],
  });

  readonly #sinks: SinkCounts | undefined;

  constructor(options: { processMetrics?: boolean; sinks?: SinkCounts } = {}) {
    this.#sinks = options.sinks;
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'switchyard_process_' });
  }
}
