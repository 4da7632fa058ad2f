import { describe, expect, it } from 'vitest';
import { firstTokenEvidence, type EvidenceDeployment, type EvidenceSearch } from './first-token-evidence.js';
import { FirstTokenSamples, NO_FIRST_TOKENS, type RecentFirstTokens } from './first-token-samples.js';

const at = (connection: string, model: string): EvidenceDeployment => ({ key: `${connection}/${model}`, connection, model });

/** Samples per key (plain and reasoning kept apart), `count` of `firstTokenMs` each. */
function searchOver(samples: Record<string, { count: number; firstTokenMs: number; reasoning?: boolean }>, search: Partial<EvidenceSearch> & Pick<EvidenceSearch, 'target'>): EvidenceSearch {
  const recent = new Map<string, RecentFirstTokens>();
  for (const [key, { count, firstTokenMs, reasoning }] of Object.entries(samples)) {
    const ring = new FirstTokenSamples();
    for (let index = 0; index < count; index++) ring.observe({ firstTokenMs, inputTokens: 100 }, 0);
    recent.set(`${key}|${reasoning === true}`, ring.recent(0));
  }
  const measured = Object.keys(samples).map((key) => at(key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)));
  return {
    routeTargets: () => [],
    measured: () => measured,
    reasoning: false,
    recentOf: (key, reasoning) => recent.get(`${key}|${reasoning}`) ?? NO_FIRST_TOKENS,
    sameModel: (a, b) => a.replace(/^anthropic\./, '') === b.replace(/^anthropic\./, ''),
    ...search,
  };
}

describe('firstTokenEvidence', () => {
  it('takes the deployment\'s own samples once it has 20', () => {
    const evidence = firstTokenEvidence(searchOver({ 'east/m': { count: 20, firstTokenMs: 100 }, 'west/m': { count: 90, firstTokenMs: 900 } }, { target: at('east', 'm') }));
    expect(evidence?.source).toBe('own');
    expect(evidence?.recent.quantileMs(0.99)).toBe(100);
  });

  it('borrows, nearest first: the same model on another connection, the connection\'s other models, the route\'s other targets', () => {
    const samples = {
      'bedrock/anthropic.claude': { count: 30, firstTokenMs: 300 },
      'east/other': { count: 40, firstTokenMs: 400 },
      'far/standby': { count: 50, firstTokenMs: 500 },
    };
    const target = at('east', 'claude');
    expect(firstTokenEvidence(searchOver(samples, { target }))?.source).toBe('same_model');
    const { 'bedrock/anthropic.claude': _sameModel, ...withoutSameModel } = samples;
    expect(firstTokenEvidence(searchOver(withoutSameModel, { target }))?.source).toBe('connection');
    const { 'east/other': _connection, ...routeOnly } = withoutSameModel;
    expect(firstTokenEvidence(searchOver(routeOnly, { target, routeTargets: () => [target, at('far', 'standby')] }))).toMatchObject({ source: 'route' });
    expect(firstTokenEvidence(searchOver(routeOnly, { target }))).toBeUndefined();
  });

  it('at each step takes the candidate with the most samples, and none with fewer than 20', () => {
    const evidence = firstTokenEvidence(searchOver({ 'east/a': { count: 19, firstTokenMs: 10 }, 'east/b': { count: 25, firstTokenMs: 250 }, 'east/c': { count: 60, firstTokenMs: 600 } }, { target: at('east', 'new') }));
    expect(evidence?.recent.quantileMs(0.99)).toBe(600);
  });

  it('times a reasoning request only by reasoning samples, however many plain ones there are', () => {
    const samples = { 'east/m': { count: 100, firstTokenMs: 100 } };
    expect(firstTokenEvidence(searchOver(samples, { target: at('east', 'm'), reasoning: true }))).toBeUndefined();
    const withReasoning = { ...samples, 'west/m': { count: 20, firstTokenMs: 9_000, reasoning: true } };
    const evidence = firstTokenEvidence(searchOver(withReasoning, { target: at('east', 'm'), reasoning: true }));
    expect(evidence?.source).toBe('same_model');
    expect(evidence?.recent.quantileMs(0.99)).toBe(9_000);
  });
});
