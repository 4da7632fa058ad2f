import { request as httpRequest } from 'node:http';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtUiDirectory } from '../../../src/http/serve-ui.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  // `npm run build` (and npm ci, through prepare) builds the dashboard before the tests run.
  if (!existsSync(`${builtUiDirectory()}/index.html`)) throw new Error('the dashboard is not built: run `npm run build` first');
  gateway = await startGateway(`${MOCK_CONNECTIONS}\nroutes: {}\n`);
});
afterAll(() => gateway?.close());

/** A GET with the path sent exactly as written (fetch would resolve `..` before sending). */
function rawGet(path: string, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: hostname, port, path, method, timeout: 5_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    request.on('timeout', () => request.destroy(new Error(`no answer to ${path}`)));
    request.on('error', reject);
    request.end();
  });
}

describe('GET /ui/', () => {
  it('serves the page with its security headers, never cached stale', async () => {
    const page = await rawGet('/ui/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body).toContain('<div id="app">');
  });

  it('redirects /ui to /ui/', async () => {
    const answer = await rawGet('/ui');
    expect(answer.status).toBe(308);
    expect(answer.headers.location).toBe('/ui/');
  });

  it('answers every page URL with the same page, so deep links and reloads work', async () => {
    const page = (await rawGet('/ui/')).body;
    for (const path of ['/ui/requests', '/ui/requests/req_0123456789abcdef?from=link', '/ui/keys', '/ui/deployments/', '/ui/drills']) {
      const answer = await rawGet(path);
      expect(answer.status, path).toBe(200);
      expect(answer.body, path).toBe(page);
    }
  });

  it('serves the hashed assets with their types, cached for good', async () => {
    const page = (await rawGet('/ui/')).body;
    const script = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(page)?.[1];
    const style = /href="(\/ui\/assets\/[^"]+\.css)"/.exec(page)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    const js = await rawGet(script!);
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const css = await rawGet(style!);
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('refuses a missing asset and any path out of its directory with a 404', async () => {
    for (const path of [
      '/ui/assets/missing-0000.js',
      '/ui/../package.json',
      '/ui/%2e%2e/package.json',
      '/ui/assets/..%2f..%2fpackage.json',
      '/ui/..%5c..%5cpackage.json',
      '/ui/.vite/manifest.json',
      '/ui/%00index.html',
      '/ui/%E0%A4%A',
    ]) {
      const answer = await rawGet(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).not.toContain('"name": "switchyard"');
    }
  });

  it('answers other methods with 405', async () => {
    expect((await rawGet('/ui/', 'POST')).status).toBe(405);
  });
});
