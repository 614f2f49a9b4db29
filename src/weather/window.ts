import { addDays, isoDate } from '../domain/dates.js';
import { windowFor } from '../domain/weather/window.js';
import type { ConditionsProvider } from '../providers/provider.js';
import type { ResortRecord, ResortRepository } from '../data/repositories/resorts.js';
import type { StoredDay, WeatherRepository } from '../data/repositories/weather.js';
import type { Logger } from '../lib/logger.js';
import { nextTurn, turnSpent } from '../lib/turn.js';

/**
 * The longest a turn of the event loop spends simulating and writing the window (ms); requests are
 * served between turns. (A slice of 25 resorts held the loop for 60–160 ms at the turn of a day.)
 */
const TURN_BUDGET_MS = 8;

/**
 * Keeps the stored weather window (the last 60 days and the next 7) current for the clock's
 * today. Cheap when it is: one string comparison per request. When it is not (first start after
 * an import, a new day), the missing resorts are filled in the background, a slice at a time, so
 * the server listens and answers meanwhile: a request about one resort fills that resort at once,
 * and only answers over every resort (rankings, insights) wait for the whole window.
 */
export class WeatherWindow {
  private coveredFor: string | null = null;
  private filling: { today: string; pending: Set<string>; done: Promise<void> } | null = null;
  private stopped = false;

  constructor(
    private readonly resorts: ResortRepository,
    private readonly weather: WeatherRepository,
    private readonly provider: ConditionsProvider,
    private readonly now: () => Date,
    private readonly logger: Logger,
    /** Fill missing days by itself (the offline provider); otherwise sync runs do. */
    private readonly autoFill = true,
  ) {}

  today(): string {
    return isoDate(this.now());
  }

  private coverageChecked = { at: -Infinity, today: '', version: -1, covered: false };

  /**
   * Whether today's window is stored for every resort (what readiness waits for). With a real
   * provider the window comes from sync runs: the database is asked again when the weather has
   * changed (a run published), and at most every 10 s otherwise (another process may write it).
   */
  get ready(): boolean {
    const today = this.today();
    if (this.autoFill) return this.coveredFor === today;
    const c = this.coverageChecked;
    const version = this.weather.version;
    if (c.today !== today || c.version !== version || performance.now() - c.at > 10_000) {
      const { from, to } = windowFor(today);
      this.coverageChecked = { at: performance.now(), today, version, covered: this.weather.resortsMissing(from, to).length === 0 };
    }
    return this.coverageChecked.covered;
  }

  /** Starts filling today's window if it is not complete; resolves when it is. */
  async ensureCurrent(): Promise<string> {
    const today = this.today();
    if (this.coveredFor === today || !this.autoFill) return today;
    await this.start(today).done;
    return today;
  }

  /** Today's date, once these resorts have today's window (filled now if the fill has not reached them). */
  async ensureFor(ids: readonly string[]): Promise<string> {
    const today = this.today();
    if (this.coveredFor === today || !this.autoFill) return today;
    const fill = this.start(today);
    const now = ids.filter((id) => fill.pending.has(id));
    if (now.length > 0) {
      for (const id of now) fill.pending.delete(id);
      await this.write(this.resorts.findByIds(now), today);
    }
    return today;
  }

  private start(today: string) {
    if (this.filling?.today === today) return this.filling;
    const { from, to } = windowFor(today);
    const pending = new Set(this.weather.resortsMissing(from, to));
    const fill = { today, pending, done: Promise.resolve() };
    fill.done = this.fillInSlices(fill).catch((err) => {
      this.logger.error({ err }, 'weather window fill failed');
      if (this.filling === fill) this.filling = null;
      throw err;
    });
    // Those who wait for the fill hear its failure; nobody waiting is no unhandled rejection (it is logged).
    fill.done.catch(() => {});
    this.filling = fill;
    return fill;
  }

  private async fillInSlices(fill: { today: string; pending: Set<string> }): Promise<void> {
    const started = performance.now();
    const total = fill.pending.size;
    while (fill.pending.size > 0 && !this.stopped) {
      // Resorts one at a time while the turn's budget lasts, written together; then requests get a
      // turn. Each stays pending until written: a request about it meanwhile writes it itself.
      const rows: StoredDay[] = [];
      const done: string[] = [];
      turnSpent(TURN_BUDGET_MS);
      for (const id of fill.pending) {
        if (this.stopped) break;
        const [resort] = this.resorts.findByIds([id]);
        if (resort) rows.push(...(await this.daysOf(resort, fill.today)));
        done.push(id);
        if (turnSpent(TURN_BUDGET_MS)) break;
      }
      if (this.stopped) break;
      this.weather.write(rows);
      for (const id of done) fill.pending.delete(id);
      await nextTurn();
    }
    // Stopped (the server is closing its database): what was written stays, nothing more is done.
    if (this.stopped) return;
    // A fill that finished after the day changed is not the current one: it prunes nothing (the
    // current day's fill does), so it never drops rows that day's window needs.
    if (total > 0 && this.today() === fill.today) {
      this.weather.prune(addDays(windowFor(fill.today).from, -30));
      this.logger.info({ today: fill.today, resorts: total, ms: Math.round(performance.now() - started) }, 'weather window written');
    }
    if (this.today() === fill.today) this.coveredFor = fill.today;
  }

  /** Stops a fill going on (at shutdown); what it wrote stays, the rest is filled at the next start. */
  stop(): void {
    this.stopped = true;
  }

  private async write(resorts: readonly ResortRecord[], today: string): Promise<void> {
    const rows: StoredDay[] = [];
    for (const resort of resorts) rows.push(...(await this.daysOf(resort, today)));
    if (!this.stopped) this.weather.write(rows);
  }

  /** A resort's window as the provider makes it, as stored rows. */
  private async daysOf(resort: ResortRecord, today: string): Promise<StoredDay[]> {
    const { from, to } = windowFor(today);
    const days = await this.provider.daily(resort, from, to, today);
    const syncedAt = this.now().toISOString();
    return days.map((day) => ({ ...day, resortId: resort.id, source: this.provider.name, syncedAt }));
  }
}
