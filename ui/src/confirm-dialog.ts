import { html, nothing, type TemplateResult } from 'lit-html';

/** What a confirmation asks: its question, what doing it means, and the button that does it. */
export interface Confirmation {
  title: string;
  body: string | TemplateResult;
  action: string;
  /** Styles the action as destructive (revoking, deleting). */
  danger?: boolean;
  run(): void;
}

/**
 * A modal question with Cancel and the action: `open` shows it (Escape or Cancel leave it
 * unanswered), and only the action's button runs the confirmation.
 */
export class ConfirmDialog {
  readonly #id: string;
  readonly #root: HTMLElement;
  readonly #redraw: () => void;
  #asking: Confirmation | undefined;

  constructor(id: string, root: HTMLElement, redraw: () => void) {
    this.#id = id;
    this.#root = root;
    this.#redraw = redraw;
  }

  open(confirmation: Confirmation): void {
    this.#asking = confirmation;
    this.#redraw();
    const dialog = this.#root.querySelector<HTMLDialogElement>(`#${this.#id}`);
    if (!dialog) return;
    // Escape closes without setting it: the last answer must not count again.
    dialog.returnValue = '';
    dialog.showModal();
  }

  template(): TemplateResult {
    const asking = this.#asking;
    return html`<dialog id=${this.#id} aria-labelledby=${`${this.#id}-heading`} @close=${(event: Event) => this.#closed(event)}>
      <form method="dialog">
        <h2 id=${`${this.#id}-heading`}>${asking?.title ?? ''}</h2>
        ${asking ? html`<p>${asking.body}</p>` : nothing}
        <button value="cancel" class="quiet">Cancel</button>
        <button value="confirm" class=${asking?.danger ? 'danger' : ''}>${asking?.action ?? ''}</button>
      </form>
    </dialog>`;
  }

  #closed(event: Event): void {
    const answered = (event.currentTarget as HTMLDialogElement).returnValue === 'confirm';
    const asking = this.#asking;
    this.#asking = undefined;
    if (answered && asking) asking.run();
    else this.#redraw();
  }
}
