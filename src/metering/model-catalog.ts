export interface ModelFacts {
  contextWindow: number;
  inputPerMtok: number;
  outputPerMtok: number;
  /** Cached input tokens read back (OpenAI `cached_tokens`, Anthropic `cache_read_input_tokens`, Gemini `cachedContentTokenCount`). */
  cacheReadPerMtok?: number;
  /** Input tokens written to the 5-minute cache (Anthropic `cache_creation_input_tokens`). */
  cacheWritePerMtok?: number;
  /**
   * The model reasons before it answers unless told not to (OpenAI's GPT-5 and o-series, Gemini
   * 2.5 Pro and Flash): its first token comes after its thinking, so it is timed apart.
   */
  reasoning?: true;
}

/**
 * What the gateway knows about common models without being told: context window (tokens) and
 * list price (USD per million tokens). A target's own `context_window` and `price` override it.
 * Prices change: this table is as of 2025-11-01, and a wrong entry costs an estimate, never a request.
 *
 * Cache prices, where listed, are the providers' published rates (checked again in 2026):
 * - Anthropic bills prompt-cache reads at 0.1× and 5-minute cache writes at 1.25× the input
 *   price; 1-hour writes cost 2×, which usage reports apart (`ONE_HOUR_WRITE_FACTOR` prices them
 *   from the 5-minute rate listed here). Claude on Bedrock is billed the same.
 * - OpenAI bills cached input at a discount that depends on the family (GPT-5: 90 %, GPT-4.1,
 *   o3 and o4-mini: 75 %, GPT-4o: 50 %) and charges nothing extra for writing the cache, so no
 *   write price is listed and written tokens cost the input price.
 * - Gemini 2.5 bills cached input (`cachedContentTokenCount`, implicit caching or a cached
 *   content) at 10 % of the input price; the storage of an explicit cache is billed by the hour,
 *   outside any request, and is not counted here.
 * Unlisted cache rates bill those tokens at the full input price, which over-counts rather than
 * under-counts. Tiered prices (Gemini 2.5 Pro above 200k prompt tokens, long-context Sonnet) are not modelled:
 * the table carries the standard tier.
 */
const CATALOG: Readonly<Record<string, ModelFacts>> = {
  'gpt-5': { contextWindow: 400_000, inputPerMtok: 1.25, outputPerMtok: 10, cacheReadPerMtok: 0.125, reasoning: true },
  'gpt-5-mini': { contextWindow: 400_000, inputPerMtok: 0.25, outputPerMtok: 2, cacheReadPerMtok: 0.025, reasoning: true },
  'gpt-5-nano': { contextWindow: 400_000, inputPerMtok: 0.05, outputPerMtok: 0.4, cacheReadPerMtok: 0.005, reasoning: true },
  'gpt-4.1': { contextWindow: 1_047_576, inputPerMtok: 2, outputPerMtok: 8, cacheReadPerMtok: 0.5 },
  'gpt-4.1-mini': { contextWindow: 1_047_576, inputPerMtok: 0.4, outputPerMtok: 1.6, cacheReadPerMtok: 0.1 },
  'gpt-4.1-nano': { contextWindow: 1_047_576, inputPerMtok: 0.1, outputPerMtok: 0.4, cacheReadPerMtok: 0.025 },
  'gpt-4o': { contextWindow: 128_000, inputPerMtok: 2.5, outputPerMtok: 10, cacheReadPerMtok: 1.25 },
  'gpt-4o-mini': { contextWindow: 128_000, inputPerMtok: 0.15, outputPerMtok: 0.6, cacheReadPerMtok: 0.075 },
  o3: { contextWindow: 200_000, inputPerMtok: 2, outputPerMtok: 8, cacheReadPerMtok: 0.5, reasoning: true },
  'o4-mini': { contextWindow: 200_000, inputPerMtok: 1.1, outputPerMtok: 4.4, cacheReadPerMtok: 0.275, reasoning: true },
  'claude-opus-4-1': { contextWindow: 200_000, inputPerMtok: 15, outputPerMtok: 75, cacheReadPerMtok: 1.5, cacheWritePerMtok: 18.75 },
  'claude-sonnet-4-5': { contextWindow: 200_000, inputPerMtok: 3, outputPerMtok: 15, cacheReadPerMtok: 0.3, cacheWritePerMtok: 3.75 },
  'claude-sonnet-4': { contextWindow: 200_000, inputPerMtok: 3, outputPerMtok: 15, cacheReadPerMtok: 0.3, cacheWritePerMtok: 3.75 },
  'claude-haiku-4-5': { contextWindow: 200_000, inputPerMtok: 1, outputPerMtok: 5, cacheReadPerMtok: 0.1, cacheWritePerMtok: 1.25 },
  'claude-3-5-haiku': { contextWindow: 200_000, inputPerMtok: 0.8, outputPerMtok: 4, cacheReadPerMtok: 0.08, cacheWritePerMtok: 1 },
  'gemini-2.5-pro': { contextWindow: 1_048_576, inputPerMtok: 1.25, outputPerMtok: 10, cacheReadPerMtok: 0.125, reasoning: true },
  'gemini-2.5-flash': { contextWindow: 1_048_576, inputPerMtok: 0.3, outputPerMtok: 2.5, cacheReadPerMtok: 0.03, reasoning: true },
  'gemini-2.5-flash-lite': { contextWindow: 1_048_576, inputPerMtok: 0.1, outputPerMtok: 0.4, cacheReadPerMtok: 0.01 },
};

const NAMES_LONGEST_FIRST = Object.keys(CATALOG).sort((a, b) => b.length - a.length);

/**
 * What providers append to a model name to pin a release of it: a date (Anthropic `-20250929`,
 * Vertex `@20250929`, OpenAI `-2024-08-06`), a Gemini release (`-001`), Bedrock's `-v1:0`, the
 * moving `-latest`, or a dated preview (`-preview-05-20`, `-preview-09-2025`, `-exp-03-25`).
 * A one- or two-digit number is not one: `claude-sonnet-4-6` would be another model, not `claude-sonnet-4`.
 */
const VERSION_SUFFIX = /^(?:-\d{8}|@\d{8}|-\d{4}-\d{2}-\d{2}|-\d{3}|-v\d+(?::\d+)?|-latest|-(?:preview|exp)(?:-\d{2}|-\d{4})*)+$/;

/**
 * Facts for a model name as providers spell it: exact, or the longest catalog name it starts
 * with followed by a version suffix (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`,
 * `claude-sonnet-4-5@20250929`), also
 * after a provider prefix (`anthropic.claude-sonnet-4-5…`, `models/gemini-2.5-pro`).
 */
export function lookupModel(model: string): ModelFacts | undefined {
  if (lookups.has(model)) return lookups.get(model);
  const name = withoutProviderPrefix(model);
  let facts: ModelFacts | undefined;
  if (Object.hasOwn(CATALOG, name)) facts = CATALOG[name];
  else {
    // Vertex pins a release with `@` (`claude-sonnet-4-5@20250929`), the others with `-`.
    const base = NAMES_LONGEST_FIRST.find((candidate) => name.startsWith(`${candidate}-`) || name.startsWith(`${candidate}@`));
    facts = base === undefined ? undefined : CATALOG[base];
  }
  // Every request prices its target and checks its context window by model name; the names are
  // the config's (and direct requests'), so the answers are kept, a bounded number of them.
  if (lookups.size >= MAX_REMEMBERED_LOOKUPS) lookups.clear();
  lookups.set(model, facts);
  return facts;
}

const MAX_REMEMBERED_LOOKUPS = 1_000;
const lookups = new Map<string, ModelFacts | undefined>();

/**
 * What a model name means across providers, so two targets can be told to be the same model: the
 * catalog's name when the catalog knows it — `claude-sonnet-4-5` for Anthropic's
 * `claude-sonnet-4-5-20250929`, Bedrock's `us.anthropic.claude-sonnet-4-5-20250929-v1:0` and
 * Vertex's `claude-sonnet-4-5@20250929` alike — and otherwise the name exactly as written.
 *
 * Stricter than `lookupModel`: only a version may follow the catalog name, since `o3-mini`,
 * `gpt-5-codex` or `gpt-4o-audio-preview` are other models even where a price guess would do.
 */
export function modelIdentity(model: string): string {
  const name = withoutProviderPrefix(model);
  if (Object.hasOwn(CATALOG, name)) return name;
  const base = NAMES_LONGEST_FIRST.find((candidate) => name.startsWith(candidate) && VERSION_SUFFIX.test(name.slice(candidate.length)));
  return base ?? model;
}

/** `models/gemini-2.5-pro` → `gemini-2.5-pro`, `us.anthropic.claude-…` → `claude-…` (and ARNs, `openai/gpt-4.1`). */
function withoutProviderPrefix(model: string): string {
  return model.slice(model.lastIndexOf('/') + 1).replace(/^([a-z]+\.)+/, '');
}

/** Whether the catalog knows the model as one that reasons before answering by default. */
export function isReasoningModel(model: string): boolean {
  return lookupModel(model)?.reasoning === true;
}
