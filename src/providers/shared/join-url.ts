/** `${baseUrl}${path}` without a doubled slash when the configured base URL ends in one. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}
