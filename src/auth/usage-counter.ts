import type { KeyRepository } from '../data/repositories/keys.js';

/**
 * Monthly request counts per key. Counting in SQLite on every request cost a third of the
 * throughput (a write transaction each), so counts are kept in memory, checked against the quota
 * there, and written in one transaction per second and at shutdown — and at once when a key's
 * unwritten count reaches its per-second rate, whatever the timer does (a busy event loop can
 * delay it). So a process killed with `kill -9` loses at most one second's worth of each key's
 * requests (its rate), which can only undercount: a client gets at most that many extra requests,
 * and no other data is at stake. One serving process per database is assumed.
 */
export class UsageCounter {
  private readonly totals = new Map<string, number>();
  private readonly pending = new Map<string, { keyId: number; month: string; requests: number }>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly keys: KeyRepository,
    flushEveryMs = 1000,
  ) {
    this.timer = setInterval(() => this.flush(), flushEveryMs);
    this.timer.unref();
  }

  /**
   * The month's count after this request, or null when the quota is used up (nothing counted).
   * `writeAfter`: unwritten requests of this key that are written at once (its per-second rate).
   */
  take(keyId: number, month: string, quota: number, writeAfter = Infinity): number | null {
    const k = `${keyId}|${month}`;
    const total = this.totals.get(k) ?? this.keys.usage(keyId, month);
    if (total >= quota) {
      this.totals.set(k, total);
      return null;
    }
    this.totals.set(k, total + 1);
    const p = this.pending.get(k) ?? { keyId, month, requests: 0 };
    p.requests++;
    this.pending.set(k, p);
    if (p.requests >= writeAfter) {
      this.pending.delete(k);
      this.keys.addUsage([p]);
    }
    return total + 1;
  }

  /** Requests counted for a key in a month so far (what `take` compares with the quota). */
  used(keyId: number, month: string): number {
    return this.totals.get(`${keyId}|${month}`) ?? this.keys.usage(keyId, month);
  }

  /** This month's counts of the keys seen since start (for /metrics). */
  countsFor(month: string): { keyId: number; requests: number }[] {
    const out: { keyId: number; requests: number }[] = [];
    for (const [k, requests] of this.totals) {
      const [keyId, m] = k.split('|');
      if (m === month) out.push({ keyId: Number(keyId), requests });
    }
    return out;
  }

  flush(): void {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending.clear();
    this.keys.addUsage(batch);
  }

  close(): void {
    clearInterval(this.timer);
    this.flush();
  }
}
