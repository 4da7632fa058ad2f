import type { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.js';
import { formatPath } from '../../config/config-issue.js';
import { MAX_JSON_DEPTH, tooDeepPath } from './json-depth.js';

/** A path longer than this is cut in the error: its keys come from the caller and can be long. */
const MAX_PATH_CHARS = 512;

/**
 * The body as `schema` parses it, or a 400 naming the first offending field — nesting deeper
 * than `MAX_JSON_DEPTH` anywhere, known fields or passthrough, included. A valid body is
 * parsed on zod's fast path; only a refused one is parsed again with `reportInput`, which tells a
 * missing field from a wrong type (the value is never echoed) but takes zod off that path — about
 * four times the cost on every request.
 */
export function validateBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  const tooDeep = tooDeepPath(body);
  if (tooDeep) throw tooDeepError(tooDeep);
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw describeValidationError(schema.safeParse(body, { reportInput: true }).error!);
}

/**
 * A zod failure on a request body → a 400 naming the first offending field, the way OpenAI
 * reports `param`. Discriminated unions report the deepest useful path (e.g. `messages[2].role`).
 */
function describeValidationError(error: z.ZodError): GatewayError {
  const issue = error.issues[0]!;
  // An unknown field is named itself, not the object that holds it.
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  const param = formatPath(path);
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    message = 'unknown field';
  } else if (issue.code === 'invalid_union' && 'note' in issue && issue.note === 'No matching discriminator') {
    message = `unsupported value for "${String(issue.discriminator)}"`;
  } else if (issue.code === 'invalid_type' && issue.input === undefined) {
    message = 'required';
  }
  const prefix = param === '(root)' ? '' : `${param}: `;
  return new GatewayError(`Invalid request: ${prefix}${message}.`, {
    status: 400,
    code: 'invalid_request_error',
    param: param === '(root)' ? undefined : param,
  });
}

function tooDeepError(path: readonly (string | number)[]): GatewayError {
  const formatted = formatPath(path);
  const param = formatted.length > MAX_PATH_CHARS ? `${formatted.slice(0, MAX_PATH_CHARS)}…` : formatted;
  return new GatewayError(`Invalid request: ${param}: JSON nested deeper than ${MAX_JSON_DEPTH} levels.`, {
    status: 400,
    code: 'invalid_request_error',
    param,
  });
}
