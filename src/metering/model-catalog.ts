/**
 * What the gateway knows about common models without being told: context window (tokens) and
 * list price (USD per million tokens). A target's own `context_window` and `price` override it.
 * Prices change: this table is dated, and a wrong entry costs an estimate, never a request.
 */
export const MODEL_CATALOG_DATE = '2025-11-01';

export interface ModelFacts {
  contextWindow: number;
  inputPerMtok: number;
  outputPerMtok: number;
}

const CATALOG: Readonly<Record<string, ModelFacts>> = {
  'gpt-5': { contextWindow: 400_000, inputPerMtok: 1.25, outputPerMtok: 10 },
  'gpt-5-mini': { contextWindow: 400_000, inputPerMtok: 0.25, outputPerMtok: 2 },
  'gpt-5-nano': { contextWindow: 400_000, inputPerMtok: 0.05, outputPerMtok: 0.4 },
  'gpt-4.1': { contextWindow: 1_047_576, inputPerMtok: 2, outputPerMtok: 8 },
  'gpt-4.1-mini': { contextWindow: 1_047_576, inputPerMtok: 0.4, outputPerMtok: 1.6 },
  'gpt-4.1-nano': { contextWindow: 1_047_576, inputPerMtok: 0.1, outputPerMtok: 0.4 },
  'gpt-4o': { contextWindow: 128_000, inputPerMtok: 2.5, outputPerMtok: 10 },
  'gpt-4o-mini': { contextWindow: 128_000, inputPerMtok: 0.15, outputPerMtok: 0.6 },
  o3: { contextWindow: 200_000, inputPerMtok: 2, outputPerMtok: 8 },
  'o4-mini': { contextWindow: 200_000, inputPerMtok: 1.1, outputPerMtok: 4.4 },
  'claude-opus-4-1': { contextWindow: 200_000, inputPerMtok: 15, outputPerMtok: 75 },
  'claude-sonnet-4-5': { contextWindow: 200_000, inputPerMtok: 3, outputPerMtok: 15 },
  'claude-sonnet-4': { contextWindow: 200_000, inputPerMtok: 3, outputPerMtok: 15 },
  'claude-haiku-4-5': { contextWindow: 200_000, inputPerMtok: 1, outputPerMtok: 5 },
  'claude-3-5-haiku': { contextWindow: 200_000, inputPerMtok: 0.8, outputPerMtok: 4 },
  'gemini-2.5-pro': { contextWindow: 1_048_576, inputPerMtok: 1.25, outputPerMtok: 10 },
  'gemini-2.5-flash': { contextWindow: 1_048_576, inputPerMtok: 0.3, outputPerMtok: 2.5 },
  'gemini-2.5-flash-lite': { contextWindow: 1_048_576, inputPerMtok: 0.1, outputPerMtok: 0.4 },
};

const NAMES_LONGEST_FIRST = Object.keys(CATALOG).sort((a, b) => b.length - a.length);

/**
 * Facts for a model name as providers spell it: exact, or the longest catalog name it starts
 * with followed by a version suffix (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`), also
 * after a provider prefix (`anthropic.claude-sonnet-4-5…`, `models/gemini-2.5-pro`).
 */
export function lookupModel(model: string): ModelFacts | undefined {
  const name = model.slice(model.lastIndexOf('/') + 1).replace(/^([a-z]+\.)+/, '');
  if (Object.hasOwn(CATALOG, name)) return CATALOG[name];
  const base = NAMES_LONGEST_FIRST.find((candidate) => name.startsWith(`${candidate}-`));
  return base === undefined ? undefined : CATALOG[base];
}
