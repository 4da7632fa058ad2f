/**
 * The wait an OpenAI rate-limit message names ("Please try again in 11.054s.", "in 28ms", "in
 * 7m12s"), in milliseconds. A rate limit inside a Responses stream comes with no headers, so the
 * message is the only place its delay is given.
 */
export function retryDelayMsOf(message: string): number | undefined {
  const match = /try again in ([0-9hms.]+)/i.exec(message);
  if (!match) return undefined;
  const text = match[1]!.replace(/\.$/, '');
  const millis = /^(\d+(?:\.\d+)?)ms$/.exec(text);
  if (millis) return Math.ceil(Number(millis[1]));
  const parts = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(text);
  if (!parts || text === '') return undefined;
  const seconds = Number(parts[1] ?? 0) * 3600 + Number(parts[2] ?? 0) * 60 + Number(parts[3] ?? 0);
  return Math.ceil(seconds * 1000);
}
