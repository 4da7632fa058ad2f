import { LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { configSchema, type Config } from './schema.js';
import { formatPath, type ConfigIssue } from './config-issue.js';
import { interpolateEnv } from './interpolate-env.js';
import { checkReferences } from './check-references.js';

export interface ParsedConfig {
  config?: Config;
  issues: ConfigIssue[];
  /** Things an operator should know that are not errors (an optional connection left out). */
  notes: string[];
}

/** YAML text → validated, immutable config, or every issue found (not just the first). */
export function parseConfig(text: string, env: NodeJS.ProcessEnv): ParsedConfig {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  if (document.errors.length > 0) {
    return {
      issues: document.errors.map((error) => ({
        path: '(yaml)',
        message: error.message.split('\n')[0] ?? error.message,
        line: lineCounter.linePos(error.pos[0]).line,
      })),
      notes: [],
    };
  }
  const lineOf = (path: readonly PropertyKey[]) => lineOfPath(document, lineCounter, path);
  const interpolated = interpolateEnv(document.toJS() ?? {}, env);
  const notes: string[] = [];
  const raw = dropOptionalConnections(interpolated.value, notes);
  const issues: ConfigIssue[] = [...interpolated.issues];

  const parsed = configSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    issues.push(...parsed.error.issues.map((issue) => describeZodIssue(issue, raw, lineOf)));
    return { issues, notes };
  }
  const unsetByPath = new Map(interpolated.unset.map((entry) => [entry.path, entry.variable]));
  issues.push(
    ...checkReferences(parsed.data, unsetByPath).map((issue) => ({ ...issue, line: lineOf(issue.pathSegments) })),
  );
  if (issues.length > 0) return { issues: issues.map(({ path, message, line }) => ({ path, message, line })), notes };
  return { config: deepFreeze(parsed.data), issues: [], notes };
}

/**
 * A connection marked `optional: true` whose api_key is missing (typically an unset env var) is
 * left out together with its targets, and so is a route left with no targets: this is how one
 * file can offer real providers only when their keys are present.
 */
function dropOptionalConnections(raw: unknown, notes: string[]): unknown {
  if (!isRecord(raw) || !isRecord(raw.connections)) return raw;
  const dropped = new Set<string>();
  const connections: Record<string, unknown> = {};
  for (const [name, connection] of Object.entries(raw.connections)) {
    if (isRecord(connection) && connection.optional === true && connection.api_key === undefined) {
      dropped.add(name);
      notes.push(`connection ${name} left out: it is optional and has no api_key`);
    } else {
      connections[name] = connection;
    }
  }
  if (dropped.size === 0 || !isRecord(raw.routes)) return { ...raw, connections };
  const routes: Record<string, unknown> = {};
  for (const [name, route] of Object.entries(raw.routes)) {
    if (!isRecord(route) || !Array.isArray(route.targets)) {
      routes[name] = route;
      continue;
    }
    const targets = route.targets.filter((target) => !(isRecord(target) && dropped.has(String(target.connection))));
    if (targets.length === 0 && route.targets.length > 0) notes.push(`route ${name} left out: all its targets are on left-out connections`);
    else routes[name] = { ...route, targets };
  }
  return { ...raw, connections, routes };
}

function describeZodIssue(
  issue: z.core.$ZodIssue,
  raw: unknown,
  lineOf: (path: readonly PropertyKey[]) => number | undefined,
): ConfigIssue {
  const path = issue.path;
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    message = `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')}`;
  } else {
    const value = valueAt(raw, path);
    if (value !== undefined) message += ` (got ${JSON.stringify(value)})`;
  }
  return { path: formatPath(path), message, line: lineOf(path) };
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

function lineOfPath(document: Document, lineCounter: LineCounter, path: readonly PropertyKey[]): number | undefined {
  for (let length = path.length; length > 0; length--) {
    const node = document.getIn(path.slice(0, length), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return lineCounter.linePos(node.range[0]).line;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
