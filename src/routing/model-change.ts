import type { TargetConfig } from '../config/schema.js';
import { modelIdentity } from '../metering/model-catalog.js';

/** Whether a target answers with another model than the one the route is for, and who said so. */
export interface ModelChange {
  modelChange: boolean;
  /** `model_change` was not written: the value compares the target's model with the first target's. */
  inferred: boolean;
}

/**
 * Per target of a route, in config order: `model_change` as written, else whether its model is
 * not the first target's by the catalog's identity across providers (names the catalog does not
 * know compare exactly), so the first target is never one. It matters because a short Retry-After
 * on the model asked for is worth a wait, and another model is a different answer
 * (docs/lifecycle.md).
 *
 * The first target is the one the route tries first when all is well — the lowest `priority`, the
 * first written among equals — so inferring never moves it from the front.
 */
export function modelChanges(targets: readonly TargetConfig[]): ModelChange[] {
  if (targets.length === 0) return [];
  const first = targets.reduce((best, target) => (target.priority < best.priority ? target : best));
  const asked = modelOf(first);
  return targets.map((target) =>
    target.model_change === undefined
      ? { modelChange: modelOf(target) !== asked, inferred: true }
      : { modelChange: target.model_change, inferred: false },
  );
}

/**
 * Directives (`gpt-4.1?status=429`) act out a state of the model named before them on the mock,
 * whichever provider's wire it plays — Vertex's included, which a `provider: vertex` connection
 * reaches through its base_url (docs/mock.md). No provider's model id has a `?`.
 */
function modelOf(target: TargetConfig): string {
  return modelIdentity(target.model.split('?', 1)[0]!);
}
