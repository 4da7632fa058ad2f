import { formatPath } from './config-issue.js';

const ENV_REFERENCE = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;
const WHOLE_ENV_REFERENCE = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** A string of the file that holds (part of) the environment: never to be quoted in an error. */
export interface EnvSubstitution {
  path: PropertyKey[];
  variables: string[];
}

export interface InterpolationResult {
  value: unknown;
  /** References inside a longer string to a variable that is not set: an error. */
  missing: { path: PropertyKey[]; variable: string }[];
  /** Paths whose whole value was an unset variable; they are left out, as if not written. */
  unset: { path: string; variable: string }[];
  substitutions: EnvSubstitution[];
}

/**
 * Replaces `${env:NAME}` in every string scalar (after YAML parsing, so a value can never inject
 * YAML). A value that is only an unset reference is dropped, so optional settings such as
 * `admin.token` stay absent; an unset reference inside a longer string is an error.
 */
export function interpolateEnv(value: unknown, env: NodeJS.ProcessEnv): InterpolationResult {
  const result: InterpolationResult = { value: undefined, missing: [], unset: [], substitutions: [] };
  result.value = walk(value, [], env, result);
  return result;
}

function walk(value: unknown, path: PropertyKey[], env: NodeJS.ProcessEnv, result: InterpolationResult): unknown {
  if (typeof value === 'string') return substitute(value, path, env, result);
  if (Array.isArray(value)) return value.map((item, index) => walk(item, [...path, index], env, result));
  if (value !== null && typeof value === 'object') {
    const output: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const substituted = walk(item, [...path, key], env, result);
      if (substituted !== undefined) output[key] = substituted;
    }
    return output;
  }
  return value;
}

function substitute(text: string, path: PropertyKey[], env: NodeJS.ProcessEnv, result: InterpolationResult): unknown {
  const whole = WHOLE_ENV_REFERENCE.exec(text);
  if (whole) {
    const variable = whole[1]!;
    const resolved = env[variable];
    if (resolved === undefined || resolved === '') {
      result.unset.push({ path: formatPath(path), variable });
      return undefined;
    }
    result.substitutions.push({ path, variables: [variable] });
    return resolved;
  }
  const variables: string[] = [];
  const substituted = text.replace(ENV_REFERENCE, (reference, variable: string) => {
    const resolved = env[variable];
    if (resolved === undefined) {
      result.missing.push({ path, variable });
      return reference;
    }
    variables.push(variable);
    return resolved;
  });
  if (variables.length > 0) result.substitutions.push({ path, variables });
  return substituted;
}
