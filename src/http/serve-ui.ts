import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GatewayError } from '../errors/gateway-error.js';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** Vite names everything under assets/ after its content: a changed file is a new name, so browsers may keep these for good. */
const HASHED_ASSETS = 'assets/';
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The page may load only its own files and call only its own gateway: no CDN, nothing inline
 * but the style attributes the charts set, and no framing.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * Where `npm run build` puts the dashboard: dist/ui beside the compiled gateway. Tests run the
 * gateway from its TypeScript sources, which find the same built files in dist/.
 */
export function builtUiDirectory(): string {
  const here = import.meta.url;
  return fileURLToPath(here.endsWith('.ts') ? new URL('../../dist/ui/', here) : new URL('../../ui/', here));
}

/**
 * `GET /ui/<path>`: the dashboard's built files. A path that names no file and has no extension
 * is a page of the single-page app, answered with index.html so deep links and reloads work;
 * anything that could leave the directory (`..`, dot files, backslashes, NUL) is a 404.
 */
export async function serveUi(request: IncomingMessage, response: ServerResponse, relativePath: string, directory: string): Promise<void> {
  const path = safeRelativePath(relativePath);
  if (path === undefined) throw notFound(request.url ?? '');
  const root = resolve(directory);
  const file = path === '' ? undefined : join(root, path);
  if (file !== undefined && file.startsWith(root + sep) && (await isFile(file))) {
    await sendFile(response, file, path.startsWith(HASHED_ASSETS) ? IMMUTABLE : 'no-cache');
    return;
  }
  // A missing script or stylesheet must fail as such, not be answered with the page.
  if (extname(path) !== '') throw notFound(request.url ?? '');
  const index = join(root, 'index.html');
  if (!(await isFile(index))) {
    throw new GatewayError('The dashboard is not built: run `npm run build` (npm ci does it too).', { status: 404, code: 'not_found', type: 'invalid_request_error' });
  }
  await sendFile(response, index, 'no-cache');
}

/** `GET /ui`: the app's pages resolve their assets against /ui/. */
export function redirectToUi(_request: IncomingMessage, response: ServerResponse): void {
  response.writeHead(308, { location: '/ui/', 'content-length': '0' });
  response.end();
}

function safeRelativePath(raw: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw.split('?', 1)[0]!);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const segments = decoded.split('/');
  if (segments.some((segment) => segment.startsWith('.'))) return undefined;
  return segments.filter((segment) => segment !== '').join('/');
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function sendFile(response: ServerResponse, file: string, cacheControl: string): Promise<void> {
  const body = await readFile(file);
  const type = CONTENT_TYPES[extname(file)] ?? 'application/octet-stream';
  response.writeHead(200, {
    'content-type': type,
    'content-length': String(body.length),
    'cache-control': cacheControl,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    ...(type.startsWith('text/html') ? { 'content-security-policy': CONTENT_SECURITY_POLICY } : {}),
  });
  response.end(body);
}

function notFound(url: string): GatewayError {
  return new GatewayError(`No dashboard file at ${url.split('?', 1)[0]}.`, { status: 404, code: 'not_found', type: 'invalid_request_error' });
}
