import { html, nothing, render } from 'lit-html';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { AdminApi, AdminApiError, type AdminCredentials } from './admin-api.js';
import type { AdminMeResponse } from './admin-api-types.js';
import { followLink } from './follow-link.js';
import { matchRoute, NAVIGATION } from './routes.js';
import { csrfToken, forgetSession, signOutOfSession } from './session-cookie.js';
import { showSignInForm } from './sign-in-form.js';
import { keepTableCellsLabelled } from './table-labels.js';

/** Session storage: the token lasts as long as the tab, and is the only secret the page keeps. */
const TOKEN_KEY = 'switchyard.admin-token';
const TOKEN_REFUSED = 'The gateway refused this admin token. Enter the admin.token of its config.';
const SESSION_ENDED = 'Your sign-in has ended. Sign in again.';

const root = document.getElementById('app')!;
let stopPage: () => void = () => undefined;
/** The signed-in dashboard: how it calls the admin API, and who the gateway takes it for. */
let signedIn: { api: AdminApi; credentials: AdminCredentials; me: AdminMeResponse } | undefined;

/** Signed in with a token in this tab, or by a session of the identity provider (whose CSRF cookie the page sees), or not. */
function start(): void {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) void showDashboard({ token });
  else if (csrfToken()) void showDashboard({ session: true });
  else showSignIn();
}

function showSignIn(message?: string): void {
  stopPage();
  stopPage = () => undefined;
  signedIn = undefined;
  showSignInForm(root, {
    message,
    onToken(token) {
      sessionStorage.setItem(TOKEN_KEY, token);
      void showDashboard({ token });
    },
  });
}

/** Sign-out: the token forgotten, or the session ended at the gateway. */
async function signOut(): Promise<void> {
  const credentials = signedIn?.credentials;
  sessionStorage.removeItem(TOKEN_KEY);
  if (credentials && 'session' in credentials) await signOutOfSession();
  history.replaceState(null, '', location.pathname + location.search);
  showSignIn();
}

/** The admin API refused the credentials: a token no longer valid, or a session that has ended. */
function refused(credentials: AdminCredentials): void {
  sessionStorage.removeItem(TOKEN_KEY);
  if ('session' in credentials) forgetSession();
  showSignIn('session' in credentials ? SESSION_ENDED : TOKEN_REFUSED);
}

async function showDashboard(credentials: AdminCredentials): Promise<void> {
  const api = new AdminApi(credentials, () => refused(credentials));
  try {
    signedIn = { api, credentials, me: await api.get<AdminMeResponse>('/admin/me') };
  } catch (failure) {
    // A 401 has signed out already.
    if (!(failure instanceof AdminApiError && failure.status === 401)) showSignIn(`The gateway could not be asked who you are: ${(failure as Error).message}`);
    return;
  }
  showPage();
}

function navigate(url: string): void {
  history.pushState(null, '', url);
  showPage();
}

const follow = followLink(navigate);

function showPage(): void {
  if (!signedIn) return;
  const { api, me } = signedIn;
  const allowed = new Set(me.allowed);
  const can = (route: string) => allowed.has(route);
  stopPage();
  const match = matchRoute(location.pathname);
  render(
    html`<header class="top">
        <a class="brand" href="/ui/" @click=${follow}>Switchyard</a>
        <nav aria-label="Dashboard">
          <ul>
            ${NAVIGATION.filter((link) => link.needs === undefined || can(link.needs)).map(
              (link) =>
                html`<li><a href=${link.path} @click=${follow} aria-current=${match?.section === link.path ? 'page' : nothing}>${link.label}</a></li>`,
            )}
          </ul>
        </nav>
        <p class="who" aria-label="Signed in as">${me.name} <span class="role">${me.role.replace('_', ' ')}</span></p>
        <button type="button" class="quiet" @click=${() => void signOut()}>Sign out</button>
      </header>
      <main id="page"></main>`,
    root,
  );
  // Each page draws into an element of its own: a read still in flight when another page opened
  // then lands in an element no longer in the document, never over the new page.
  const page = document.createElement('div');
  root.querySelector<HTMLElement>('#page')!.replaceChildren(page);
  if (!match) {
    render(html`<h1 tabindex="-1">Not found</h1><p>The dashboard has no page at ${location.pathname}. <a href="/ui/" @click=${follow}>Go to the overview</a>.</p>`, page);
    stopPage = () => undefined;
    return;
  }
  const stopLabels = keepTableCellsLabelled(page);
  const stopMatched = match.page(page, { api, me, can, params: match.params, query: new URLSearchParams(location.search), navigate });
  stopPage = () => {
    stopMatched();
    stopLabels();
  };
  // Keyboard and screen-reader users land on the new page's heading, as after a full load.
  page.querySelector<HTMLElement>('h1')?.focus({ preventScroll: true });
}

window.addEventListener('popstate', showPage);
start();
