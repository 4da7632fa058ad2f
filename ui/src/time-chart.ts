import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  colour: string;
  values: (number | null)[];
}

/**
 * A line chart over time (uPlot) that follows its container's width. `update` redraws it with
 * new figures; `destroy` removes it and its resize listener.
 */
export class TimeChart {
  readonly #plot: uPlot;
  readonly #container: HTMLElement;
  readonly #resize = () => this.#plot.setSize(this.#size());

  /** `range`: the y axis's fixed bounds (shares run 0–1), instead of one fitted to the figures. */
  constructor(container: HTMLElement, options: { title: string; unit: (value: number) => string; series: readonly Omit<ChartSeries, 'values'>[]; range?: [number, number] }) {
    this.#container = container;
    this.#plot = new uPlot(
      {
        title: options.title,
        ...this.#size(),
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true }, ...(options.range ? { y: { range: options.range } } : {}) },
        axes: [{}, { values: (_plot, ticks) => ticks.map(options.unit), size: 64 }],
        series: [{}, ...options.series.map((series) => ({ label: series.label, stroke: series.colour, width: 2, spanGaps: false, points: { show: true, size: 5, fill: series.colour }, value: (_plot: uPlot, value: number | null) => (value === null ? '—' : options.unit(value)) }))],
      },
      [[], ...options.series.map(() => [])],
      container,
    );
    window.addEventListener('resize', this.#resize);
  }

  /** `times`: epoch seconds of each point. */
  update(times: number[], series: readonly (number | null)[][]): void {
    this.#plot.setData([times, ...series] as uPlot.AlignedData);
  }

  destroy(): void {
    window.removeEventListener('resize', this.#resize);
    this.#plot.destroy();
  }

  #size(): { width: number; height: number } {
    return { width: Math.max(240, this.#container.clientWidth), height: 180 };
  }
}
