/** One field an audited change touched: its path (`budget.usd`), and its value before and after. */
export interface FieldChange {
  path: string;
  change: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

/**
 * The fields that differ between an audit row's `before` and `after`: those only in `after`
 * (added), only in `before` (removed), or in both with another value (changed). Nested objects are
 * walked to their fields (`a.b`); a list, an empty object or any other value is one field, and so
 * is a field that was an object on one side only (a budget set or cleared). A missing `before` (a
 * creation) or `after` (a deletion) makes every field of the other added or removed; a row edited
 * by hand may hold a value that is not an object, which is one field with no path. The
 * dashboard's Audit page shows a row as these.
 */
export function fieldChanges(before: unknown, after: unknown): FieldChange[] {
  const changes: FieldChange[] = [];
  if (before === null || before === undefined) everyField(after, '', 'added', changes);
  else if (after === null || after === undefined) everyField(before, '', 'removed', changes);
  else compare(before, after, '', changes);
  return changes;
}

function compare(before: unknown, after: unknown, path: string, changes: FieldChange[]): void {
  if (!isWalkable(before) || !isWalkable(after)) {
    if (JSON.stringify(before) !== JSON.stringify(after)) changes.push({ path, change: 'changed', before, after });
    return;
  }
  for (const [name, value] of Object.entries(after)) {
    if (Object.hasOwn(before, name)) compare(before[name], value, join(path, name), changes);
    else everyField(value, join(path, name), 'added', changes);
  }
  for (const [name, value] of Object.entries(before)) if (!Object.hasOwn(after, name)) everyField(value, join(path, name), 'removed', changes);
}

function everyField(value: unknown, path: string, change: 'added' | 'removed', changes: FieldChange[]): void {
  if (value === undefined) return;
  if (!isWalkable(value)) {
    changes.push(change === 'added' ? { path, change, after: value } : { path, change, before: value });
    return;
  }
  for (const [name, field] of Object.entries(value)) everyField(field, join(path, name), change, changes);
}

function join(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

/** A plain object with fields of its own. */
function isWalkable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0;
}
