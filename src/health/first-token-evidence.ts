import type { FirstTokenSource } from '../core/attempt-record.js';
import type { RecentFirstTokens } from './first-token-samples.js';

/** Below this many recent samples a deployment's times say too little to time anything by. */
export const MIN_FIRST_TOKEN_SAMPLES = 20;

/** A deployment as the evidence search sees it. */
export interface EvidenceDeployment {
  key: string;
  connection: string;
  model: string;
}

/**
 * Whose first-token times an attempt is timed by: the deployment's own; the same model on another
 * connection; another model on the same connection; another target of the route.
 */
export type EvidenceSource = Extract<FirstTokenSource, 'own' | 'same_model' | 'connection' | 'route'>;

export interface FirstTokenEvidence {
  source: EvidenceSource;
  recent: RecentFirstTokens;
}

export interface EvidenceSearch {
  target: EvidenceDeployment;
  /** The route's targets; asked, like `measured`, only when nearer evidence is too thin. */
  routeTargets(): readonly EvidenceDeployment[];
  /** Deployments this process has first-token times for; asked only when the target's own samples are too few. */
  measured(): readonly EvidenceDeployment[];
  /** Reasoning requests are timed by reasoning samples only: thinking first makes their first token late. */
  reasoning: boolean;
  recentOf(key: string, reasoning: boolean): RecentFirstTokens;
  /** Whether two model names are the same model (across providers' spellings). */
  sameModel(a: string, b: string): boolean;
}

/**
 * The nearest evidence of how fast this attempt's first token should come. A deployment without
 * enough samples of its own borrows, nearest first: the same model elsewhere answers alike; the
 * connection's other models share its network and provider; the route's other targets were at
 * least chosen for the same work. At each step the deployment with the most samples is taken.
 * Undefined when nothing has enough.
 */
export function firstTokenEvidence(search: EvidenceSearch): FirstTokenEvidence | undefined {
  const { target } = search;
  const own = search.recentOf(target.key, search.reasoning);
  // The common case, a deployment with samples of its own, looks at nothing else.
  if (own.samples >= MIN_FIRST_TOKEN_SAMPLES) return { source: 'own', recent: own };
  const others = search.measured().filter((deployment) => deployment.key !== target.key);
  const steps: [EvidenceSource, readonly EvidenceDeployment[]][] = [
    ['same_model', others.filter((other) => other.connection !== target.connection && search.sameModel(other.model, target.model))],
    ['connection', others.filter((other) => other.connection === target.connection)],
    ['route', search.routeTargets().filter((other) => other.key !== target.key)],
  ];
  for (const [source, candidates] of steps) {
    let best: RecentFirstTokens | undefined;
    for (const candidate of candidates) {
      const recent = search.recentOf(candidate.key, search.reasoning);
      if (recent.samples >= MIN_FIRST_TOKEN_SAMPLES && recent.samples > (best?.samples ?? 0)) best = recent;
    }
    if (best !== undefined) return { source, recent: best };
  }
  return undefined;
}
