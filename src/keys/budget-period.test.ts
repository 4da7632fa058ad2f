import { describe, expect, it } from 'vitest';
import { periodStart } from './budget-period.js';

const CREATED_AT = '2025-01-15T08:30:00.000Z';

describe('periodStart', () => {
  it('is UTC midnight for a daily budget', () => {
    expect(periodStart('day', CREATED_AT, Date.parse('2025-03-10T23:59:59.999Z'))).toBe('2025-03-10T00:00:00.000Z');
    expect(periodStart('day', CREATED_AT, Date.parse('2025-03-11T00:00:00.000Z'))).toBe('2025-03-11T00:00:00.000Z');
  });

  it('is the 1st of the UTC month for a monthly budget', () => {
    expect(periodStart('month', CREATED_AT, Date.parse('2025-03-31T23:59:59.999Z'))).toBe('2025-03-01T00:00:00.000Z');
    expect(periodStart('month', CREATED_AT, Date.parse('2024-12-31T12:00:00+05:00'))).toBe('2024-12-01T00:00:00.000Z');
    // 2025-01-01T01:00+05:00 is still December in UTC.
    expect(periodStart('month', CREATED_AT, Date.parse('2025-01-01T01:00:00+05:00'))).toBe('2024-12-01T00:00:00.000Z');
  });

  it('is the key creation for a total budget', () => {
    expect(periodStart('total', CREATED_AT, Date.parse('2026-01-01T00:00:00Z'))).toBe(CREATED_AT);
  });
});
