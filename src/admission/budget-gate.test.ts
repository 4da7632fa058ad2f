import { describe, expect, it } from 'vitest';
import { InMemoryBudgetGate, type BudgetAdmission, type BudgetReservation } from './budget-gate.js';

const DAY_1 = Date.parse('2025-03-10T00:00:00.000Z');
const DAY_2 = Date.parse('2025-03-11T00:00:00.000Z');

function reservationOf(admission: BudgetAdmission): BudgetReservation {
  if (!admission.ok) throw new Error(`refused with ${admission.availableMicros} available`);
  return admission.reservation;
}

describe('InMemoryBudgetGate', () => {
  it('admits a $0.061 request against a $0.10 budget once, not twice', () => {
    const gate = new InMemoryBudgetGate();
    const request = { keyId: 'key_a', budgetMicros: 100_000, periodStartMs: DAY_1, spentMicros: 0, maxCostMicros: 61_000 };
    expect(gate.reserve(request).ok).toBe(true);
    expect(gate.reservedMicros('key_a')).toBe(61_000);
    expect(gate.reserve(request)).toEqual({ ok: false, availableMicros: 39_000 });
  });

  it('lets one of ten concurrent requests through a budget that fits one and a half, and a later one after settling', async () => {
    const gate = new InMemoryBudgetGate();
    const request = { keyId: 'key_a', budgetMicros: 150_000, periodStartMs: DAY_1, spentMicros: 0, maxCostMicros: 100_000 };
    let admitted = 0;
    const handle = async (): Promise<void> => {
      const admission = gate.reserve(request);
      if (!admission.ok) return;
      admitted++;
      try {
        await new Promise((resolve) => setTimeout(resolve, 5));
      } finally {
        gate.settle(admission.reservation, 20_000);
      }
    };
    await Promise.all(Array.from({ length: 10 }, handle));
    expect(admitted).toBe(1);
    expect(gate.reservedMicros('key_a')).toBe(0);
    expect(gate.spentMicros('key_a', DAY_1)).toBe(20_000);
    // 20,000 spent + 100,000 reserved fits 150,000; a second reservation on top does not.
    expect(gate.reserve(request).ok).toBe(true);
    expect(gate.reserve(request)).toEqual({ ok: false, availableMicros: 30_000 });
  });

  it('releases a reservation when its request fails, and only once', () => {
    const gate = new InMemoryBudgetGate();
    const request = { keyId: 'key_a', budgetMicros: 100_000, periodStartMs: DAY_1, spentMicros: 0, maxCostMicros: 60_000 };
    const first = reservationOf(gate.reserve(request));
    try {
      throw new Error('upstream failed before any token');
    } catch {
      // the request's own error handling
    } finally {
      gate.settle(first, 0);
    }
    expect(gate.reservedMicros('key_a')).toBe(0);
    const second = reservationOf(gate.reserve(request));
    // A second settle of the first must not release the second's hold.
    gate.settle(first, 0);
    expect(gate.reservedMicros('key_a')).toBe(60_000);
    gate.settle(second, 75_000);
    // A real cost above the reservation is counted in full: the ledger will bill it.
    expect(gate.spentMicros('key_a', DAY_1)).toBe(75_000);
    expect(gate.reserve({ ...request, maxCostMicros: 30_000 })).toEqual({ ok: false, availableMicros: 25_000 });
  });

  it('reserves what is left for a request whose maximum does not fit but whose minimum does', () => {
    const gate = new InMemoryBudgetGate();
    const request = { keyId: 'key_a', budgetMicros: 50_000, periodStartMs: DAY_1, spentMicros: 20_000, maxCostMicros: 960_000, minCostMicros: 4_000 };
    expect(reservationOf(gate.reserve(request)).reservedMicros).toBe(30_000);
    // Nothing is left for a second one while the first holds the rest.
    expect(gate.reserve(request)).toEqual({ ok: false, availableMicros: 0 });
    expect(gate.reservedMicros('key_a')).toBe(30_000);
    // Without a minimum it is the maximum or nothing.
    expect(new InMemoryBudgetGate().reserve({ ...request, minCostMicros: undefined })).toEqual({ ok: false, availableMicros: 30_000 });
    expect(new InMemoryBudgetGate().reserve({ ...request, minCostMicros: 30_001 })).toEqual({ ok: false, availableMicros: 30_000 });
  });

  it('reads the ledger sum on first sight only, then keeps its own total', () => {
    const gate = new InMemoryBudgetGate();
    expect(gate.spentMicros('key_a', DAY_1)).toBeUndefined();
    const request = { keyId: 'key_a', budgetMicros: 100_000, periodStartMs: DAY_1, maxCostMicros: 20_000 };
    expect(gate.reserve({ ...request, spentMicros: 90_000 })).toEqual({ ok: false, availableMicros: 10_000 });
    expect(gate.spentMicros('key_a', DAY_1)).toBe(90_000);
    // A stale ledger sum (its write still batched) passed later changes nothing.
    expect(gate.reserve({ ...request, spentMicros: 0 })).toEqual({ ok: false, availableMicros: 10_000 });
  });

  it('refuses even a request of unknown price once the budget is spent', () => {
    const gate = new InMemoryBudgetGate();
    const request = { keyId: 'key_a', budgetMicros: 100_000, periodStartMs: DAY_1, spentMicros: 100_000, maxCostMicros: 0 };
    expect(gate.reserve(request)).toEqual({ ok: false, availableMicros: 0 });
    expect(gate.reserve({ ...request, keyId: 'key_b', spentMicros: 99_999 }).ok).toBe(true);
  });

  it('starts a new period from its ledger sum, and leaves the old period\'s costs to it', () => {
    const gate = new InMemoryBudgetGate();
    const request = { keyId: 'key_a', budgetMicros: 100_000, spentMicros: 0, maxCostMicros: 60_000 };
    const lateOnDay1 = reservationOf(gate.reserve({ ...request, periodStartMs: DAY_1 }));
    expect(gate.reserve({ ...request, periodStartMs: DAY_1 }).ok).toBe(false);

    expect(gate.spentMicros('key_a', DAY_2)).toBeUndefined();
    const onDay2 = reservationOf(gate.reserve({ ...request, periodStartMs: DAY_2 }));
    expect(gate.reservedMicros('key_a')).toBe(60_000);
    // The day-1 request ends on day 2: the ledger dates it by its start, so day 2 is not charged.
    gate.settle(lateOnDay1, 60_000);
    expect(gate.spentMicros('key_a', DAY_2)).toBe(0);
    expect(gate.reservedMicros('key_a')).toBe(60_000);
    gate.settle(onDay2, 10_000);
    expect(gate.spentMicros('key_a', DAY_2)).toBe(10_000);
  });

  it('forgets the least recently used idle key past its bound, never one with a request in flight', () => {
    const gate = new InMemoryBudgetGate({ maxKeys: 2 });
    const request = { budgetMicros: 100_000, periodStartMs: DAY_1, spentMicros: 0, maxCostMicros: 10_000 };
    const busy = reservationOf(gate.reserve({ ...request, keyId: 'key_busy' }));
    gate.settle(reservationOf(gate.reserve({ ...request, keyId: 'key_idle' })), 10_000);
    gate.reserve({ ...request, keyId: 'key_new' });
    expect(gate.spentMicros('key_idle', DAY_1)).toBeUndefined();
    expect(gate.reservedMicros('key_busy')).toBe(10_000);
    gate.settle(busy, 5_000);
    expect(gate.spentMicros('key_busy', DAY_1)).toBe(5_000);
  });

  it("reserves one request in a key's budget and its team's alike, what the tighter has room for, or in neither", () => {
    const gate = new InMemoryBudgetGate();
    const key = { keyId: 'key_a', budgetMicros: 100_000, periodStartMs: DAY_1, spentMicros: 0, maxCostMicros: 60_000, minCostMicros: 1_000 };
    const team = { ...key, keyId: 'team_t', budgetMicros: 50_000, spentMicros: 20_000 };
    const admission = gate.reserveTogether([key, team]);
    if (!admission.ok) throw new Error('refused');
    expect(admission.reservations.map(({ keyId, reservedMicros }) => [keyId, reservedMicros])).toEqual([
      ['key_a', 30_000],
      ['team_t', 30_000],
    ]);
    // The team has nothing left: the second request is refused by it (index 1), and the key holds no more than before.
    expect(gate.reserveTogether([key, team])).toEqual({ ok: false, refusedBy: 1, availableMicros: 0 });
    expect(gate.reservedMicros('key_a')).toBe(30_000);
    for (const reservation of admission.reservations) gate.settle(reservation, 10_000);
    expect(gate.spentMicros('key_a', DAY_1)).toBe(10_000);
    expect(gate.spentMicros('team_t', DAY_1)).toBe(30_000);
  });
});
