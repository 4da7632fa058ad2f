import { describe, expect, it } from 'vitest';
import { fieldChanges } from './field-changes.js';

describe('fieldChanges', () => {
  it('names the fields a change added, removed and changed, nested ones by their path', () => {
    const before = { name: 'search', budget: { usd: 5, period: 'day' }, routes: ['chat'], limits: { rpm: 60, tpm: null } };
    const after = { name: 'search', budget: { usd: 9, period: 'day' }, routes: ['chat', 'search-*'], limits: { rpm: 60, tpm: null }, status: 'active' };
    expect(fieldChanges(before, after)).toEqual([
      { path: 'budget.usd', change: 'changed', before: 5, after: 9 },
      { path: 'routes', change: 'changed', before: ['chat'], after: ['chat', 'search-*'] },
      { path: 'status', change: 'added', after: 'active' },
    ]);
  });

  it('lists every field as added for a creation and as removed for a deletion', () => {
    expect(fieldChanges(null, { id: 'team_1', exploration: { max_ttl_s: 60 } })).toEqual([
      { path: 'id', change: 'added', after: 'team_1' },
      { path: 'exploration.max_ttl_s', change: 'added', after: 60 },
    ]);
    expect(fieldChanges({ id: 'team_1' }, null)).toEqual([{ path: 'id', change: 'removed', before: 'team_1' }]);
  });

  it('shows a budget cleared or set as one field, and takes an empty object as a value', () => {
    expect(fieldChanges({ budget: { usd: 5, period: 'day' }, kinds: {} }, { budget: null, kinds: {} })).toEqual([{ path: 'budget', change: 'changed', before: { usd: 5, period: 'day' }, after: null }]);
    expect(fieldChanges({ budget: null }, { budget: { usd: 5, period: 'day' } })).toEqual([{ path: 'budget', change: 'changed', before: null, after: { usd: 5, period: 'day' } }]);
    expect(fieldChanges({ kinds: {} }, { kinds: { timeout: 1 } })).toEqual([{ path: 'kinds', change: 'changed', before: {}, after: { timeout: 1 } }]);
  });

  it('takes a config reload as its paths, dots and all, and a value edited by hand as one field with no path', () => {
    expect(fieldChanges({ 'routes.support.retries': 1 }, { 'routes.support.retries': 2 })).toEqual([{ path: 'routes.support.retries', change: 'changed', before: 1, after: 2 }]);
    expect(fieldChanges('{not json', { id: 'x' })).toEqual([{ path: '', change: 'changed', before: '{not json', after: { id: 'x' } }]);
  });

  it('reads a field named like an object built-in as any other', () => {
    expect(fieldChanges({ a: 1 }, { a: 1, constructor: 'x' })).toEqual([{ path: 'constructor', change: 'added', after: 'x' }]);
  });

  it('finds nothing between equal values', () => {
    expect(fieldChanges({ a: { b: [1, 2] } }, { a: { b: [1, 2] } })).toEqual([]);
  });
});
