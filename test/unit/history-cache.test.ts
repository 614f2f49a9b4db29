import { describe, expect, it } from 'vitest';
import { loadResortCatalogue } from '../../src/data/db/sources/resort-source.js';
import { HistoryService } from '../../src/history/service.js';
import { simulatedProvider } from '../../src/providers/simulated.js';

const vail = loadResortCatalogue().find((r) => r.id === 'vail')!;
const TODAY = '2026-01-15';

describe('the history service keeps results bounded in bytes', () => {
  it('a client varying the radius on every request cannot hold more than the budget; the newest stay', async () => {
    // Room for three 30-day results (each counted as 4,096 + 500 bytes a day = 19,096).
    const service = new HistoryService(simulatedProvider, 3 * 19_096);
    const params = (radiusKm: number) => ({ days: 30, years: 2, radiusKm });
    for (let i = 1; i <= 10; i++) await service.get(vail, params(i), TODAY);
    expect(service.kept).toEqual({ results: 3, bytes: 3 * 19_096 });
    // The newest are kept: the same request again is the same result, not a new computation.
    const again = service.get(vail, params(10), TODAY);
    expect(service.get(vail, params(10), TODAY)).toBe(again);
    expect((await again).parameters.radiusKm).toBe(10);
    // An old one was let go: asked again, it is computed again (and evicts the least recently used).
    const first = await service.get(vail, params(1), TODAY);
    expect(first.daily).toHaveLength(30);
    expect(service.kept.results).toBe(3);
  });

  it('a larger window counts for more: one 90-day result takes the room of several short ones', async () => {
    const service = new HistoryService(simulatedProvider, 60_000);
    await service.get(vail, { days: 7, years: 1, radiusKm: 1 }, TODAY);
    await service.get(vail, { days: 7, years: 1, radiusKm: 2 }, TODAY);
    expect(service.kept.results).toBe(2);
    await service.get(vail, { days: 90, years: 1, radiusKm: 3 }, TODAY);
    // 4,096 + 90 × 500 = 49,096: the two 7-day results (7,596 each) cannot both stay beside it.
    expect(service.kept).toEqual({ results: 2, bytes: 49_096 + 7_596 });
  });

  it('a failed lookup is not kept', async () => {
    const service = new HistoryService(simulatedProvider, 1_000_000);
    const abort = new AbortController();
    abort.abort();
    await expect(service.get(vail, { days: 7, years: 1, radiusKm: 5 }, TODAY, { signal: abort.signal })).rejects.toThrow();
    await Promise.resolve();
    expect(service.kept.results).toBe(0);
  });
});
