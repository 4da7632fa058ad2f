import type { RehearsalDocument, RehearsalScenarioView } from './rehearsal-document.js';

/**
 * A route's part of a rehearsal as its table shows it, on the command line and on the dashboard
 * (node-free for the dashboard): a row per fault, a cell per target position, and the advice.
 */
export interface RouteGrid {
  route: string;
  /** `N. connection/model`, in position order. */
  targets: string[];
  rows: { fault: string; cells: (RehearsalScenarioView | undefined)[] }[];
  /** Each distinct piece of advice, with the scenarios it is for (`fault@N`). */
  advice: { advice: string; where: string[] }[];
}

export function routeGrids(document: RehearsalDocument): RouteGrid[] {
  const routes = [...new Set(document.scenarios.map((scenario) => scenario.route))];
  return routes.map((route) => {
    const scenarios = document.scenarios.filter((scenario) => scenario.route === route);
    const positions = [...new Map(scenarios.map((scenario) => [scenario.position, `${scenario.position + 1}. ${scenario.target}`]))];
    const faults = [...new Set(scenarios.map((scenario) => scenario.fault))];
    const advice = new Map<string, Set<string>>();
    for (const scenario of scenarios) {
      for (const verdict of scenario.verdicts) {
        if (!verdict.pass && verdict.advice !== undefined) advice.set(verdict.advice, (advice.get(verdict.advice) ?? new Set()).add(`${scenario.fault}@${scenario.position + 1}`));
      }
    }
    return {
      route,
      targets: positions.map(([, name]) => name),
      rows: faults.map((fault) => ({ fault, cells: positions.map(([position]) => scenarios.find((scenario) => scenario.fault === fault && scenario.position === position)) })),
      advice: [...advice].map(([line, where]) => ({ advice: line, where: [...where] })),
    };
  });
}

/** A cell's figures: the caller's slowest time to the end of its answer, in seconds, and the goals that failed. */
export function cellFigures(scenario: RehearsalScenarioView): { seconds: string; failedGoals: string[] } {
  return {
    seconds: (Math.max(...scenario.calls.map((call) => call.end_ms)) / 1000).toFixed(1),
    failedGoals: scenario.verdicts.filter((verdict) => !verdict.pass).map((verdict) => verdict.goal),
  };
}
