import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startGateway, type TestGateway } from './start-gateway.js';

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

export interface GatewayBeforeHost {
  readonly host: CaptureHost;
  readonly gateway: TestGateway;
}

/**
 * A test file's capture host and a gateway configured in front of it (`config` gets the host's
 * URL), started before the file's tests and stopped after them; each test starts with no body
 * received. Call it at the file's top level.
 */
export function gatewayBeforeCaptureHost(answer: (body: string) => HostAnswer, config: (hostUrl: string) => string): GatewayBeforeHost {
  let host: CaptureHost | undefined;
  let gateway: TestGateway | undefined;
  beforeAll(async () => {
    host = await startCaptureHost(answer);
    gateway = await startGateway(config(host.url));
  });
  afterAll(async () => {
    await gateway?.close();
    await host?.close();
  });
  beforeEach(() => {
    host!.received.length = 0;
  });
  return {
    get host() {
      return host!;
    },
    get gateway() {
      return gateway!;
    },
  };
}
