import type { KeyView } from '../keys/key-view.js';
import { callAdmin, errorMessage, type AdminClientOptions } from './admin-client.js';
import { fail, keyFieldsBody, keyLines, labelled, type KeyFieldOptions } from './keys.js';

export interface KeysRotateOptions extends AdminClientOptions {
  /** Seconds the replaced secret keeps working, as text (checked by the gateway). */
  overlapS?: string;
}

export interface KeysUpdateOptions extends KeyFieldOptions {
  /** `--direct` / `--no-direct`. */
  direct?: boolean;
  /** Comma-separated fields to clear: routes, budget, limits, expires_at. */
  clear?: string;
}

const CLEARABLE = ['routes', 'budget', 'limits', 'expires_at'] as const;

/** `switchyard keys rotate ID`: prints the new secret once, and until when the old one still works. */
export async function runKeysRotate(id: string, options: KeysRotateOptions): Promise<number> {
  let body: Record<string, unknown> = {};
  if (options.overlapS !== undefined) {
    if (!/^\d+$/.test(options.overlapS)) return fail(`--overlap-s must be a whole number of seconds, 0 or more (got "${options.overlapS}")`);
    body = { overlap_s: Number(options.overlapS) };
  }
  const answer = await callAdmin('POST', `/admin/keys/${encodeURIComponent(id)}/rotate`, options, body);
  if (!answer.ok) return fail(answer.error);
  if (answer.status !== 201) return fail(`the gateway answered ${answer.status}: ${errorMessage(answer.text)}`);
  const rotated = JSON.parse(answer.text) as KeyView & { key: string; previous_expires_at: string };
  console.log(
    labelled([
      ['id', rotated.id],
      ['name', rotated.name],
      ['old key works until', rotated.previous_expires_at],
    ]),
  );
  console.log(`\n    ${rotated.key}\n`);
  console.log('Copy this key now: it will not be shown again (the gateway keeps only its hash).');
  return 0;
}

/** `switchyard keys update ID`: changes what the options set, in force on the next request. */
export async function runKeysUpdate(id: string, options: KeysUpdateOptions): Promise<number> {
  const body = keyFieldsBody(options);
  if (typeof body === 'string') return fail(body);
  if (options.direct !== undefined) body.direct = options.direct;
  for (const field of options.clear === undefined ? [] : options.clear.split(',').map((each) => each.trim())) {
    if (!CLEARABLE.some((clearable) => clearable === field)) return fail(`--clear takes a comma-separated list of ${CLEARABLE.join(', ')} (got "${field}")`);
    if (body[field] !== undefined) return fail(`${field} is both set and cleared; choose one`);
    body[field] = null;
  }
  if (Object.keys(body).length === 0) return fail('nothing to change: set --name, --routes, --budget-usd with --budget-period, --rpm, --tpm, --expires-at, --direct/--no-direct, or --clear');
  const answer = await callAdmin('PATCH', `/admin/keys/${encodeURIComponent(id)}`, options, body);
  if (!answer.ok) return fail(answer.error);
  if (answer.status !== 200) return fail(`the gateway answered ${answer.status}: ${errorMessage(answer.text)}`);
  const key = JSON.parse(answer.text) as KeyView;
  console.log(
    labelled(keyLines(key)),
  );
  return 0;
}
