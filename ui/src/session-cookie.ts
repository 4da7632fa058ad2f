/**
 * The dashboard's side of a sign-in through the identity provider. The session itself is an
 * HttpOnly cookie the page cannot read; its CSRF token is a cookie the page reads and echoes in
 * `x-csrf-token` on every change, which another site's page can neither read nor send.
 */
const CSRF_COOKIE = 'switchyard_csrf';
export const CSRF_HEADER = 'x-csrf-token';

/** The session's CSRF token; undefined when nobody is signed in through the identity provider in this browser. */
export function csrfToken(): string | undefined {
  for (const pair of document.cookie.split(';')) {
    const [name, ...value] = pair.trim().split('=');
    if (name === CSRF_COOKIE) return value.join('=') || undefined;
  }
  return undefined;
}

/** Forgets a session the gateway no longer takes (expired, or signed with a changed secret), so the page stops trying it. */
export function forgetSession(): void {
  document.cookie = `${CSRF_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax`;
}

/** Ends the session at the gateway (both cookies cleared); forgotten here whatever the gateway answered. */
export async function signOutOfSession(): Promise<void> {
  const token = csrfToken();
  try {
    const response = await fetch('/ui/logout', { method: 'POST', headers: token ? { [CSRF_HEADER]: token } : {} });
    await response.body?.cancel();
  } finally {
    forgetSession();
  }
}

/** Whether the gateway offers sign-in through an identity provider, and which. */
export async function identityProviderSignIn(): Promise<{ enabled: boolean; issuer: string | null }> {
  const response = await fetch('/ui/login/oidc/info');
  if (!response.ok) return { enabled: false, issuer: null };
  return (await response.json()) as { enabled: boolean; issuer: string | null };
}
