import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HostAnswer {
  status: number;
  contentType: string;
  body: string;
}

export interface CaptureHost {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** Every request body it got, as text, in order. */
  received: string[];
  close(): Promise<void>;
}

/**
 * A provider host of a test's own, on loopback: it keeps each request body's bytes and answers
 * with bytes the test chose (`answer` sees the body's text), so a test can tell exactly what the
 * gateway sent and passed back.
 */
export async function startCaptureHost(answer: (body: string) => HostAnswer): Promise<CaptureHost> {
  const received: string[] = [];
  const server: Server = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      received.push(text);
      const { status, contentType, body } = answer(text);
      response.writeHead(status, { 'content-type': contentType }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
