import { svg, type TemplateResult } from 'lit-html';

export interface SparkSeries {
  values: readonly (number | null)[];
  colour: string;
  /** Drawn dashed (a limit, a budget). */
  dashed?: boolean;
}

const WIDTH = 120;
const HEIGHT = 28;

/**
 * A word-sized chart of a few series on one scale from 0 to their largest value (or `ceiling`
 * when larger): a trend, not a reading, so `label` says the figures for assistive technology and
 * on hover. A null value is a gap.
 */
export function sparkline(series: readonly SparkSeries[], label: string, ceiling = 0): TemplateResult {
  const points = Math.max(...series.map((line) => line.values.length));
  const top = Math.max(ceiling, ...series.flatMap((line) => line.values.filter((value): value is number => value !== null)));
  // Inset by the stroke's width, so a dot at either end is not cut off.
  const x = (index: number) => 2 + (points <= 1 ? WIDTH - 4 : (index / (points - 1)) * (WIDTH - 4));
  const y = (value: number) => (top === 0 ? HEIGHT - 1 : HEIGHT - 1 - (value / top) * (HEIGHT - 2));
  return svg`<svg class="sparkline" viewBox="0 0 ${WIDTH} ${HEIGHT}" width=${WIDTH} height=${HEIGHT} role="img" aria-label=${label} preserveAspectRatio="none">
    <title>${label}</title>
    ${series.map((line) => segments(line.values).map((segment) => svg`<polyline fill="none" stroke=${line.colour} stroke-width="2" stroke-linecap="round" stroke-linejoin="round" stroke-dasharray=${line.dashed ? '3 2' : 'none'} vector-effect="non-scaling-stroke" points=${segment.map(([index, value]) => `${x(index).toFixed(1)},${y(value).toFixed(1)}`).join(' ')}></polyline>`))}
  </svg>`;
}

/** Runs of consecutive values; a lone point is a zero-length stroke, which its round cap draws as a dot. */
function segments(values: readonly (number | null)[]): [number, number][][] {
  const runs: [number, number][][] = [];
  let run: [number, number][] = [];
  values.forEach((value, index) => {
    if (value === null) {
      if (run.length > 0) runs.push(run);
      run = [];
    } else run.push([index, value]);
  });
  if (run.length > 0) runs.push(run);
  return runs.map((points) => (points.length === 1 ? [points[0]!, points[0]!] : points));
}
