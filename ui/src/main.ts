import { html, nothing, render } from 'lit-html';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { AdminApi, tokenIsAccepted } from './admin-api.js';
import { matchRoute, NAVIGATION } from './routes.js';
import { keepTableCellsLabelled } from './table-labels.js';

/** Session storage: the token lasts as long as the tab, and is the only secret the page keeps. */
const TOKEN_KEY = 'switchyard.admin-token';
const REFUSED_MESSAGE = 'The gateway refused this admin token. Enter the admin.token of its config.';

const root = document.getElementById('app')!;
let stopPage: () => void = () => undefined;
let api: AdminApi | undefined;

function start(): void {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) showDashboard(token);
  else showSignIn();
}

function showSignIn(message?: string): void {
  stopPage();
  stopPage = () => undefined;
  api = undefined;
  let busy = false;
  let error = message;
  const draw = () =>
    render(
      html`<main class="sign-in">
        <h1>Switchyard</h1>
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
        sessionStorage.setItem(TOKEN_KEY, token);
        showDashboard(token);
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
}

function signOut(message?: string): void {
  sessionStorage.removeItem(TOKEN_KEY);
  history.replaceState(null, '', location.pathname + location.search);
  showSignIn(message);
}

function showDashboard(token: string): void {
  api = new AdminApi(token, () => signOut(REFUSED_MESSAGE));
  showPage();
}

function navigate(url: string): void {
  history.pushState(null, '', url);
  showPage();
}

function showPage(): void {
  if (!api) return;
  stopPage();
  const match = matchRoute(location.pathname);
  render(
    html`<header class="top">
        <a class="brand" href="/ui/" @click=${follow}>Switchyard</a>
        <nav aria-label="Dashboard">
          <ul>
            ${NAVIGATION.map(
              (link) =>
                html`<li><a href=${link.path} @click=${follow} aria-current=${match?.section === link.path ? 'page' : nothing}>${link.label}</a></li>`,
            )}
          </ul>
        </nav>
        <button type="button" class="quiet" @click=${() => signOut()}>Sign out</button>
      </header>
      <main id="page"></main>`,
    root,
  );
  const page = root.querySelector<HTMLElement>('#page')!;
  if (!match) {
    render(html`<h1 tabindex="-1">Not found</h1><p>The dashboard has no page at ${location.pathname}. <a href="/ui/" @click=${follow}>Go to the overview</a>.</p>`, page);
    stopPage = () => undefined;
    return;
  }
  const stopLabels = keepTableCellsLabelled(page);
  const stopMatched = match.page(page, { api, params: match.params, query: new URLSearchParams(location.search), navigate });
  stopPage = () => {
    stopMatched();
    stopLabels();
  };
  // Keyboard and screen-reader users land on the new page's heading, as after a full load.
  page.querySelector<HTMLElement>('h1')?.focus({ preventScroll: true });
}

/** Dashboard links change the page without a reload; modified clicks (new tab) are the browser's. */
function follow(event: MouseEvent): void {
  const link = event.currentTarget as HTMLAnchorElement;
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(link.getAttribute('href')!);
}

window.addEventListener('popstate', showPage);
start();
