/**
 * One event as decoded from the wire: a server-sent event, or an AWS event-stream message (whose
 * `:event-type` — or, for an exception, `:exception-type` — is `event`, and payload is `data`).
 */
export interface SseFrame {
  event?: string;
  data: string;
}
