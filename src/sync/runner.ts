import { EventEmitter, on } from 'node:events';
import { traced, tracingOn } from '../telemetry/trace.js';
import pLimit from 'p-limit';
import { addDays, isoDate } from '../domain/dates.js';
import type { Logger } from '../lib/logger.js';
import type { ConditionsProvider, LiftStatusProvider, LiveLift } from '../providers/provider.js';
import type { ResortRepository } from '../data/repositories/resorts.js';
import type { SyncRepository, SyncRunRecord, SyncRunStatus, SyncTrigger } from '../data/repositories/sync.js';
import { windowFor } from '../domain/weather/window.js';
import { UpstreamError } from '../providers/upstream.js';

import type { SyncState } from '../data/repositories/sync.js';
import { nextTurn } from '../lib/turn.js';

export interface SyncStatus {
  state: SyncState;
  provider: string;
  progress: { done: number; total: number };
  /** The run going on, if any. */
  currentRun: { id: number; trigger: SyncTrigger; startedAt: string } | null;
  lastRun: SyncRunRecord | null;
  nextScheduledRun: string | null;
}

export interface SyncDeps {
  runs: SyncRepository;
  resorts: ResortRepository;
  conditions: ConditionsProvider;
  lifts: LiftStatusProvider | null;
  liftieIds: Map<string, string>;
  now: () => Date;
  logger: Logger;
  concurrency: number;
  /** The longest a run may take; resorts not fetched by then fail with "run budget exceeded". */
  runBudgetMs: number;
  /** Told every finished run's status (for /metrics). */
  onFinished?: (status: SyncRunStatus) => void;
}

/** How replicas share runs (cluster-sync.ts): one numbering, one schedule. */
export interface SyncCoordination {
  /** The lowest id the next run may take (replicas number runs across the cluster). */
  nextRunId(): number;
  /** Whether this process runs the schedule now (with replicas: only the sync leader does). */
  mayRunScheduled(): boolean;
  /**
   * Shares a run's published window with the other replicas (never rejects). The run ends once it
   * has, so a replica whose status says SUCCEEDED can already take the window.
   */
  shareWindow(runId: number, window: { from: string; to: string }): Promise<void>;
}

/** What the API asks of sync: this process's runner, or the cluster's (src/cluster/cluster-sync.ts). */
export interface SyncService {
  status(): SyncStatus | Promise<SyncStatus>;
  history(limit: number): SyncRunRecord[] | Promise<SyncRunRecord[]>;
  start(trigger: SyncTrigger): SyncStatus | Promise<SyncStatus>;
  updates(signal?: AbortSignal): AsyncGenerator<SyncStatus>;
}

/**
 * A resort's failure as clients may see it (sync history, status): a fixed category, never the
 * provider's own text, which can hold its internals; the log has the detail, under the run's id.
 */
function publicCause(err: unknown, runId: number): string {
  const what = err instanceof UpstreamError ? err.publicMessage : 'internal error';
  return `provider lookup error: ${what} (details in the server log, sync run ${runId})`;
}

/**
 * The status now, then each one `events` emits as 'status'. It listens before reading the first,
 * so a change while that is read or sent is not lost. The signal aborting (the client left, the
 * server stops) ends the updates: an ending, not an error (it was logged as one, with a stack).
 */
export async function* statusUpdates(events: EventEmitter, current: () => SyncStatus | Promise<SyncStatus>, signal?: AbortSignal): AsyncGenerator<SyncStatus> {
  const changes = on(events, 'status', { signal });
  try {
    yield await current();
    for await (const [status] of changes) yield status as SyncStatus;
  } catch (err) {
    if (!signal?.aborted) throw err;
  } finally {
    await changes.return?.();
  }
}

/**
 * Pulls conditions from the configured provider into SQLite. One run at a time: starting while a
 * run is going starts nothing. Each resort's data is staged as it arrives; the run publishes all
 * of it in one transaction at the end (PARTIAL when some resorts failed, FAILED when none
 * succeeded, in which case nothing is published and the last good data stays served).
 */
export class SyncRunner implements SyncService {
  private readonly events = new EventEmitter();
  private running: { id: number; trigger: SyncTrigger; startedAt: string; done: number; total: number; promise: Promise<void> } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private nextRunAt: Date | null = null;
  /** Cancels the run going on (at shutdown). */
  private stopRun: (() => void) | null = null;

  /** Set when replicas share runs; alone, a process numbers its own and runs its schedule. */
  private coordination: SyncCoordination | null = null;

  constructor(private readonly deps: SyncDeps) {
    this.events.setMaxListeners(0);
  }

  /** Shares runs with other replicas from now on (the cluster's sync, once it exists). */
  coordinate(by: SyncCoordination): void {
    this.coordination = by;
  }

  /** Marks runs a dead process left RUNNING as FAILED; call once at start-up. */
  recover(): void {
    const n = this.deps.runs.recoverInterrupted(this.deps.now().toISOString());
    if (n > 0) this.deps.logger.warn({ runs: n }, 'sync runs interrupted by a previous stop marked FAILED');
  }

  status(): SyncStatus {
    const r = this.running;
    return {
      state: r ? 'RUNNING' : 'IDLE',
      provider: this.deps.conditions.name,
      progress: r ? { done: r.done, total: r.total } : { done: 0, total: 0 },
      currentRun: r ? { id: r.id, trigger: r.trigger, startedAt: r.startedAt } : null,
      lastRun: this.deps.runs.lastFinished(),
      nextScheduledRun: this.nextRunAt?.toISOString() ?? null,
    };
  }

  history(limit: number): SyncRunRecord[] {
    return this.deps.runs.list(limit);
  }

  /** Starts a run unless one is going; either way answers the status. */
  start(trigger: SyncTrigger): SyncStatus {
    if (this.running) return this.status();
    const resorts = this.deps.resorts.all();
    const startedAt = this.deps.now().toISOString();
    const id = this.deps.runs.startRun(trigger, this.deps.conditions.name, startedAt, resorts.length, this.coordination?.nextRunId() ?? 1);
    const run = { id, trigger, startedAt, done: 0, total: resorts.length, promise: Promise.resolve() };
    this.running = run;
    // Traced: the run as one span (under the request that started it, if one did; it may outlive it).
    run.promise = (
      tracingOn()
        ? traced(`sync run ${id}`, { 'sync.run_id': id, 'sync.trigger': trigger, 'sync.resorts': resorts.length }, () => this.execute(run, resorts), true)
        : this.execute(run, resorts)
    )
      .catch((err: Error) => {
        // A run that breaks itself (not one resort) is FAILED and publishes nothing.
        this.deps.logger.error({ err, syncRun: id }, 'sync run aborted');
        this.deps.runs.discard(id);
        this.deps.runs.finish(id, this.deps.now().toISOString(), 'FAILED', 0, run.total, publicCause(err, id));
      })
      .finally(() => {
        this.running = null;
        const last = this.deps.runs.lastFinished();
        if (last?.id === id) this.deps.onFinished?.(last.status);
        this.emit();
      });
    this.emit();
    return this.status();
  }

  /** Resolves when the run going on (if any) has finished. */
  async idle(): Promise<void> {
    await this.running?.promise;
  }

  /** Status updates as they happen, starting with the current one (for subscriptions). */
  updates(signal?: AbortSignal): AsyncGenerator<SyncStatus> {
    return statusUpdates(this.events, () => this.status(), signal);
  }

  schedule(intervalMinutes: number): void {
    if (intervalMinutes <= 0) return;
    const ms = intervalMinutes * 60_000;
    this.nextRunAt = new Date(this.deps.now().getTime() + ms);
    this.timer = setInterval(() => {
      this.nextRunAt = new Date(this.deps.now().getTime() + ms);
      if (this.coordination?.mayRunScheduled() ?? true) this.start('SCHEDULED');
    }, ms);
    this.timer.unref();
  }

  /** Stops the schedule and cancels a run going on; resolves when it has ended. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.nextRunAt = null;
    this.stopRun?.();
    await this.idle().catch(() => {});
  }

  /** Every status change, as it happens (the cluster shares them). */
  onStatus(listener: (status: SyncStatus) => void): void {
    this.events.on('status', listener);
  }

  /** Each run that published data (its id and window): what is derived from the data is made again. */
  onPublished(listener: (runId: number, window: { from: string; to: string }) => void): void {
    this.events.on('published', listener);
  }

  /** When the next scheduled run starts (null without a schedule). */
  get nextScheduledRun(): Date | null {
    return this.nextRunAt;
  }

  /** Whether a run is going on in this process. */
  get busy(): boolean {
    return this.running !== null;
  }

  private emit(): void {
    this.events.emit('status', this.status());
  }

  private async execute(run: { id: number; done: number }, resorts: ReturnType<ResortRepository['all']>): Promise<void> {
    const { deps } = this;
    const today = isoDate(deps.now());
    const { from, to } = windowFor(today);
    const limit = pLimit(deps.concurrency);
    let updated = 0;
    let failed = 0;
    let firstError: string | null = null;
    const log = deps.logger.child({ syncRun: run.id });
    log.info({ provider: deps.conditions.name, resorts: resorts.length, budgetMs: deps.runBudgetMs }, 'sync run started');
    // The whole run has a budget: past it, calls in flight are cancelled and the rest not started.
    const budget = new AbortController();
    const timer = setTimeout(() => budget.abort(), deps.runBudgetMs);
    timer.unref();
    this.stopRun = () => budget.abort();
    const bounds = { signal: budget.signal, deadline: performance.now() + deps.runBudgetMs };

    try {
      await Promise.all(
        resorts.map((resort) =>
          limit(async () => {
            // A turn of the event loop per resort: a provider that answers at once (the simulated
            // one) would otherwise run the whole sync inside one turn and hold every request.
            await nextTurn();
            const liftieId = deps.liftieIds.get(resort.id);
            // Weather and lift status are asked at once, and each stands alone: lift status is a
            // bonus that never fails the resort's weather, and fresh lift status is kept even when
            // the weather could not be had (the report then says LIFTS, not SYNC, to subscribers).
            const [weather, lifts] = await Promise.allSettled([
              budget.signal.aborted
                ? Promise.reject(new UpstreamError(deps.conditions.name, 'no time left', 'the run budget was spent before this resort'))
                : deps.conditions.daily(resort, from, to, today, bounds),
              deps.lifts && liftieId ? deps.lifts.lifts(liftieId, bounds) : Promise.resolve(null),
            ]);
            if (lifts.status === 'rejected') log.warn({ resort: resort.id, cause: (lifts.reason as Error).message }, 'lift status lookup failed');
            const live: LiveLift[] | null = lifts.status === 'fulfilled' ? lifts.value : null;
            try {
              if (weather.status === 'rejected') throw weather.reason;
              const syncedAt = deps.now().toISOString();
              deps.runs.stage(
                run.id,
                resort.id,
                weather.value.map((d) => ({ ...d, resortId: resort.id, source: deps.conditions.name, syncedAt })),
                live,
              );
              updated++;
            } catch (err) {
              failed++;
              firstError ??= publicCause(err, run.id);
              log.warn({ resort: resort.id, cause: (err as Error).message }, 'resort sync failed');
              if (live) deps.runs.stage(run.id, resort.id, [], live);
            } finally {
              run.done++;
              this.emit();
            }
          }),
        ),
      );
    } finally {
      clearTimeout(timer);
      this.stopRun = null;
    }

    const finishedAt = deps.now().toISOString();
    if (updated === 0 && resorts.length > 0) {
      deps.runs.discard(run.id);
      deps.runs.finish(run.id, finishedAt, 'FAILED', 0, failed, firstError);
      log.error({ cause: firstError }, 'sync run failed; the last good data stays served');
      return;
    }
    deps.runs.publish(run.id, addDays(from, -30), deps.lifts?.name ?? 'none', finishedAt);
    deps.runs.finish(run.id, finishedAt, failed > 0 ? 'PARTIAL' : 'SUCCEEDED', updated, failed, failed > 0 ? firstError : null);
    this.events.emit('published', run.id, { from, to });
    log.info({ updated, failed }, 'sync run published');
    await this.coordination?.shareWindow(run.id, { from, to });
  }
}
