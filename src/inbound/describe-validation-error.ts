import type { z } from 'zod';
import { GatewayError } from '../errors/gateway-error.js';
import { formatPath } from '../config/config-issue.js';

/**
 * A zod failure on a request body → a 400 naming the first offending field, the way OpenAI
 * reports `param`. Discriminated unions report the deepest useful path (e.g. `messages[2].role`).
 */
export function describeValidationError(error: z.ZodError): GatewayError {
  const issue = error.issues[0]!;
  const param = formatPath(issue.path);
  let message = issue.message;
  if (issue.code === 'invalid_union' && 'note' in issue && issue.note === 'No matching discriminator') {
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
