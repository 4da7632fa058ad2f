import { html, type TemplateResult } from 'lit-html';

/**
 * Reads a dashboard form in the admin API's terms: a field left empty is null (a key made without
 * it, a team's field cleared), numbers as numbers, route globs as a list. The gateway checks the
 * values and names a bad one in its 400.
 */
export class FormFields {
  readonly #fields: FormData;

  constructor(form: HTMLFormElement) {
    this.#fields = new FormData(form);
  }

  text(name: string): string {
    return String(this.#fields.get(name) ?? '').trim();
  }

  number(name: string): number | null {
    const text = this.text(name);
    return text === '' ? null : Number(text);
  }

  /** `usd` and `period` together, or null when no amount is given. */
  budget(usdName = 'budget', periodName = 'period'): { usd: number; period: string } | null {
    const usd = this.number(usdName);
    return usd === null ? null : { usd, period: this.text(periodName) };
  }

  /** Comma-separated globs; empty or `all` is no bound. */
  routes(name = 'routes'): string[] | null {
    const text = this.text(name);
    if (text === '' || text === 'all') return null;
    return text.split(',').map((glob) => glob.trim()).filter(Boolean);
  }

  limits(rpmName = 'rpm', tpmName = 'tpm'): { rpm: number | null; tpm: number | null } {
    return { rpm: this.number(rpmName), tpm: this.number(tpmName) };
  }

  /** A `datetime-local` field (the browser's zone) as ISO 8601, or null. */
  time(name: string): string | null {
    const text = this.text(name);
    return text === '' ? null : new Date(text).toISOString();
  }
}

const PERIODS = ['month', 'day', 'total'] as const;

/** A budget's period, as every form with a budget offers it. */
export function periodChoice(name = 'period', selected: string = PERIODS[0]): TemplateResult {
  return html`<select name=${name}>
    ${PERIODS.map((period) => html`<option ?selected=${period === selected}>${period}</option>`)}
  </select>`;
}
