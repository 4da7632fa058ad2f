/** The data of one server-sent event's text (a relayed frame: `event:` line, `data:` lines, blank line). */
export function dataOf(text: string): string {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
    .join('\n');
}

/** The frame with `data` in place of its own, under the same event name (its first line, when that is `event:`). */
export function withData(text: string, data: string): string {
  const frame = `data: ${data.replaceAll('\n', '\ndata: ')}\n\n`;
  return text.startsWith('event:') ? `${text.slice(0, text.indexOf('\n') + 1)}${frame}` : frame;
}
