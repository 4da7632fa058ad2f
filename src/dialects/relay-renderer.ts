import type { StreamRenderer } from './caller-dialect.js';

/**
 * The caller's renderer for a relayed stream: each upstream frame goes out as the provider sent
 * it (`relay-frame`), the events read from it are not rendered again. What the gateway itself
 * says — an error after the commit point, the end of a stream whose upstream closed without its
 * last word — is the dialect's own renderer's.
 */
export function relayRenderer(dialect: StreamRenderer): StreamRenderer {
  let ended = false;
  return {
    write(event) {
      if (event.type === 'relay-frame') {
        ended ||= event.last === true;
        return event.text;
      }
      return event.type === 'provider-error' ? dialect.write(event) : '';
    },
    end: () => (ended ? '' : dialect.end()),
    error: (error) => dialect.error(error),
  };
}
