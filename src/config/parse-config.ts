import { isMap, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { configSchema, type Config } from './schema.js';
import { formatPath, type ConfigIssue } from './config-issue.js';
import { interpolateEnv, type EnvSubstitution } from './interpolate-env.js';
import { checkReferences } from './check-references.js';
import { closestName } from './closest-name.js';
import { keysAllowedAt } from './keys-allowed-at.js';
import { describeQuoted, quoteValue } from './quote-value.js';
import { isRecord } from './is-record.js';

export interface ParsedConfig {
  config?: Config;
  issues: ConfigIssue[];
  /** Things an operator should know that are not errors (an optional connection left out). */
  notes: string[];
}

interface LocatedIssue {
  pathSegments: readonly PropertyKey[];
  message: string;
  line: number | undefined;
}

/** A problem a file check found, at the config path it is about. */
export interface FileCheckIssue {
  pathSegments: PropertyKey[];
  message: string;
}

/**
 * A check of the files a config names (canary prompts), run with the schema and reference checks
 * and reported the same way, at the line of the path it names. Given by the caller: what such a
 * check reads (a dialect's parser, for prompts) is above the config layer.
 */
export type FileCheck = (raw: unknown, configFile: string | undefined) => FileCheckIssue[];

export interface ParseConfigOptions {
  /** The file the text was read from: paths in it are relative to its directory. */
  file?: string;
  fileChecks?: readonly FileCheck[];
}

/** YAML text → validated, immutable config, or every issue found (not just the first). */
export function parseConfig(text: string, env: NodeJS.ProcessEnv, options: ParseConfigOptions = {}): ParsedConfig {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  if (document.errors.length > 0) {
    return {
      issues: document.errors.map((error) => ({
        path: '(yaml)',
        // Some syntax errors end by quoting the offending source text, which may be a secret written in the file.
        message: (error.message.split('\n')[0] ?? error.message).replace(/: ".*"$/, ''),
        line: lineCounter.linePos(error.pos[0]).line,
      })),
      notes: [],
    };
  }
  const lineOf = (path: readonly PropertyKey[]) => lineOfPath(document, lineCounter, path);
  const interpolated = interpolateEnv(document.toJS() ?? {}, env);
  const notes: string[] = [];
  const raw = dropOptionalConnections(interpolated.value, notes);
  const issues: LocatedIssue[] = interpolated.missing.map(({ path, variable }) => ({
    pathSegments: path,
    message: `environment variable ${variable} is not set`,
    line: lineOf(path),
  }));

  const parsed = configSchema.safeParse(raw, { reportInput: true });
  const schemaIssues = parsed.success
    ? []
    : parsed.error.issues.flatMap((issue) => describeZodIssue(issue, raw, interpolated.substitutions, { lineOf, lineOfKey: (path, key) => lineOfKey(document, lineCounter, path, key) }));
  issues.push(...schemaIssues);
  // A value the schema already refused needs no second error about what it refers to.
  const refused = new Set(schemaIssues.map((issue) => formatPath(issue.pathSegments)));
  const context = { unsetByPath: new Map(interpolated.unset.map((entry) => [entry.path, entry.variable])), substitutions: interpolated.substitutions };
  for (const issue of [...checkReferences(raw, context), ...(options.fileChecks ?? []).flatMap((check) => check(raw, options.file))]) {
    if (!refused.has(formatPath(issue.pathSegments))) issues.push({ pathSegments: issue.pathSegments, message: issue.message, line: lineOf(issue.pathSegments) });
  }
  if (issues.length > 0 || !parsed.success) {
    return { issues: byLine(issues).map(({ pathSegments, message, line }) => ({ path: formatPath(pathSegments), message, line })), notes };
  }
  return { config: deepFreeze(parsed.data), issues: [], notes };
}

/** Errors in file order; those without a line (rare: a key the file does not have) last. */
function byLine(issues: LocatedIssue[]): LocatedIssue[] {
  return issues
    .map((issue, index) => ({ issue, index }))
    .sort((a, b) => (a.issue.line ?? Infinity) - (b.issue.line ?? Infinity) || a.index - b.index)
    .map(({ issue }) => issue);
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

interface Lines {
  lineOf(path: readonly PropertyKey[]): number | undefined;
  lineOfKey(path: readonly PropertyKey[], key: string): number | undefined;
}

/** One zod issue → the operator's errors: one per unknown key, each at its own line with a suggestion. */
function describeZodIssue(issue: z.core.$ZodIssue, raw: unknown, substitutions: readonly EnvSubstitution[], lines: Lines): LocatedIssue[] {
  const path = issue.path;
  if (issue.code === 'unrecognized_keys') {
    const allowed = keysAllowedAt(configSchema, path, raw);
    return issue.keys.map((key) => {
      const suggestion = closestName(key, allowed);
      const hint = suggestion ? ` (did you mean "${suggestion}"?)` : allowed.length > 0 ? ` (allowed here: ${allowed.join(', ')})` : '';
      return { pathSegments: [...path, key], message: `unknown key${hint}`, line: lines.lineOfKey(path, key) ?? lines.lineOf(path) };
    });
  }
  let message = issue.message;
  const value = valueAt(raw, path);
  if (value !== undefined) {
    const quoted = quoteValue(value, path, substitutions);
    message += ` ${describeQuoted(quoted)}`;
    const choices = issue.code === 'invalid_value' ? issue.values : issue.code === 'invalid_union' && 'options' in issue ? (issue.options as unknown[]) : [];
    const suggestion = quoted.shown && typeof value === 'string' ? closestName(value, choices.filter((choice) => typeof choice === 'string')) : undefined;
    if (suggestion) message += ` (did you mean "${suggestion}"?)`;
  }
  return [{ pathSegments: path, message, line: lines.lineOf(path) }];
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

/** The line of a key itself (not its parent's), so an unknown key is reported where it is written. */
function lineOfKey(document: Document, lineCounter: LineCounter, path: readonly PropertyKey[], key: string): number | undefined {
  const parent = path.length === 0 ? document.contents : document.getIn(path, true);
  if (!isMap(parent)) return undefined;
  const pair = parent.items.find((item) => String((item.key as { value?: unknown } | null)?.value ?? item.key) === key);
  const range = (pair?.key as { range?: [number, number, number] } | null)?.range;
  return range ? lineCounter.linePos(range[0]).line : undefined;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
