import { html, nothing, render } from 'lit-html';
import { tokenIsAccepted } from './admin-api.js';
import { identityProviderSignIn } from './session-cookie.js';

const REFUSED_MESSAGE = 'The gateway refused this admin token. Enter the admin.token of its config.';

/**
 * The sign-in form: the company's identity provider when the gateway has one (`admin.oidc`), and
 * the admin token, which always works (break-glass). `onToken` is called with a token the
 * gateway accepted; the identity provider's sign-in leaves the page and comes back signed in.
 */
export function showSignInForm(root: HTMLElement, options: { message?: string | undefined; onToken(token: string): void }): void {
  let busy = false;
  let error = options.message;
  let issuerHost: string | undefined;
  const draw = () =>
    render(
      html`<main class="sign-in">
        <h1>Switchyard</h1>
        ${issuerHost === undefined
          ? nothing
          : html`<p><a class="button" id="sign-in-oidc" href="/ui/login/oidc">Sign in with ${issuerHost}</a></p>
              <p class="muted">Or, with the gateway's admin token:</p>`}
        <form @submit=${submit}>
          <label for="admin-token">Admin token</label>
          <input id="admin-token" name="token" type="password" autocomplete="current-password" required ?disabled=${busy} />
          <button type="submit" ?disabled=${busy}>Sign in</button>
          <p class="error" role="alert">${error ?? nothing}</p>
        </form>
      </main>`,
      root,
    );
  async function submit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const input = (event.currentTarget as HTMLFormElement).elements.namedItem('token') as HTMLInputElement;
    const token = input.value.trim();
    if (token === '') return;
    busy = true;
    error = undefined;
    draw();
    try {
      if (await tokenIsAccepted(token)) {
        options.onToken(token);
        return;
      }
      error = REFUSED_MESSAGE;
    } catch (failure) {
      error = `The gateway could not be asked: ${(failure as Error).message}`;
    }
    busy = false;
    draw();
    root.querySelector<HTMLInputElement>('#admin-token')?.focus();
  }
  draw();
  root.querySelector<HTMLInputElement>('#admin-token')?.focus();
  void identityProviderSignIn().then(
    ({ enabled, issuer }) => {
      if (!enabled || issuer === null || !root.querySelector('.sign-in')) return;
      issuerHost = new URL(issuer).host;
      draw();
    },
    // Without the answer the form offers the admin token alone.
    () => undefined,
  );
}
