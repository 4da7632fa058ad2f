const DEFAULT_MAX_CHARS = 200;

/**
 * A short, single-line excerpt of a response body for error messages: an HTML error page
 * from a proxy becomes its visible text, never kilobytes of markup.
 */
export function excerptBody(body: string, maxChars: number = DEFAULT_MAX_CHARS): string {
  const text = body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

/** The message for an error response whose body is not the provider's error JSON. */
export function describeBody(status: number, body: string): string {
  return excerptBody(body) || `HTTP ${status} with an empty body`;
}
