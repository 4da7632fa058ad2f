import type { ServerResponse } from 'node:http';

/** Nothing but the page's own inline style and empty icon: no script, no form posting elsewhere, no framing. */
const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export interface SignInPage {
  title: string;
  /** Paragraphs of plain text (escaped here). */
  paragraphs: readonly string[];
}

/**
 * A page of the sign-in the browser lands on instead of the dashboard (a refusal, an identity
 * provider that cannot be reached), with the way back to the sign-in form.
 */
export function sendSignInPage(response: ServerResponse, status: number, page: SignInPage, headers: Record<string, string | string[]> = {}): void {
  const body = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} · Switchyard</title>
<link rel="icon" href="data:,">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1b1f24}h1{font-size:1.4rem}</style>
</head>
<body>
<main>
<h1>${escapeHtml(page.title)}</h1>
${page.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('\n')}
<p><a href="/ui/">Back to the sign-in</a></p>
</main>
</body>
</html>
`;
  response.writeHead(status, {
    ...headers,
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  response.end(body);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
