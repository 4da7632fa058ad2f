import { html, nothing, type TemplateResult } from 'lit-html';

/**
 * A secret the gateway shows once (a new key's): on the page with a Copy button until the operator
 * dismisses it, then dropped from the page and from memory. Nothing of it is ever stored.
 */
export class NewSecret {
  readonly #root: HTMLElement;
  readonly #redraw: () => void;
  #shown: { name: string; secret: string; copied: boolean } | undefined;

  constructor(root: HTMLElement, redraw: () => void) {
    this.#root = root;
    this.#redraw = redraw;
  }

  show(name: string, secret: string): void {
    this.#shown = { name, secret, copied: false };
    this.#redraw();
    this.#root.querySelector<HTMLElement>('#secret-heading')?.scrollIntoView({ block: 'nearest' });
  }

  /** Drops the secret without drawing: the page is being left. */
  forget(): void {
    this.#shown = undefined;
  }

  template(): TemplateResult | typeof nothing {
    const shown = this.#shown;
    if (!shown) return nothing;
    return html`<section class="secret" aria-labelledby="secret-heading">
      <h2 id="secret-heading">New key “${shown.name}”</h2>
      <p>This is the only time the secret is shown: copy it now.</p>
      <p><code class="mono" id="new-secret">${shown.secret}</code></p>
      <button type="button" @click=${() => void this.#copy()}>${shown.copied ? 'Copied' : 'Copy'}</button>
      <button type="button" class="quiet" @click=${() => this.#dismiss()}>Done</button>
    </section>`;
  }

  async #copy(): Promise<void> {
    if (!this.#shown) return;
    try {
      await navigator.clipboard.writeText(this.#shown.secret);
      this.#shown.copied = true;
    } catch {
      // No clipboard permission: select the text so Ctrl+C copies it.
      const code = this.#root.querySelector('#new-secret');
      if (code) getSelection()?.selectAllChildren(code);
    }
    this.#redraw();
  }

  #dismiss(): void {
    this.#shown = undefined;
    this.#redraw();
  }
}
