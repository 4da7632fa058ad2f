/**
 * How far off a moment is, to the second (`in 1 min 58 s`, `12 s ago`): an ejection's or a
 * cooling's end is read against the clock in an incident, where "in 2 min" hides whether the
 * next probe is due before the next retry.
 */
export function relativeToTheSecond(atMs: number, nowMs = Date.now()): string {
  const offsetMs = atMs - nowMs;
  const total = Math.round(Math.abs(offsetMs) / 1000);
  if (total === 0) return 'now';
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const parts = [hours > 0 ? `${hours} h` : '', minutes > 0 ? `${minutes} min` : '', total % 60 > 0 ? `${total % 60} s` : ''].filter(Boolean);
  return offsetMs > 0 ? `in ${parts.join(' ')}` : `${parts.join(' ')} ago`;
}
