import type { Db } from '../db/open.js';
import type { LiveLift } from '../../providers/provider.js';
import type { StoredDay } from './weather.js';
import { DAILY_WEATHER } from '../db/tables.js';

/** Whether a run is going (the status of the sync service, not of a run). */
export const SYNC_STATES = ['IDLE', 'RUNNING'] as const;
export type SyncState = (typeof SYNC_STATES)[number];
export const SYNC_TRIGGERS = ['MANUAL', 'SCHEDULED'] as const;
export type SyncTrigger = (typeof SYNC_TRIGGERS)[number];
export const SYNC_RUN_STATUSES = ['RUNNING', 'SUCCEEDED', 'PARTIAL', 'FAILED'] as const;
export type SyncRunStatus = (typeof SYNC_RUN_STATUSES)[number];

export interface SyncRunRecord {
  id: number;
  trigger: SyncTrigger;
  provider: string;
  startedAt: string;
  finishedAt: string | null;
  status: SyncRunStatus;
  resortsTotal: number;
  resortsUpdated: number;
  resortsFailed: number;
  error: string | null;
}

const RUN_COLUMNS = `id, trigger, provider, started_at AS startedAt, finished_at AS finishedAt, status,
  resorts_total AS resortsTotal, resorts_updated AS resortsUpdated, resorts_failed AS resortsFailed, error`;

const WEATHER_COLUMNS = DAILY_WEATHER.list;

/**
 * Sync runs and their staged data. A run stages what it fetches, resort by resort; `publish`
 * moves all of it into the served tables in one transaction, so readers see the previous data or
 * the whole run, never half of it. A crash leaves only staging rows, which the next start drops.
 */
export class SyncRepository {
  private readonly insertRun;
  private readonly finishRun;
  private readonly listStmt;
  private readonly lastFinishedStmt;
  private readonly interruptStmt;
  private readonly stageDay;
  private readonly stageLift;

  constructor(private readonly db: Db) {
    // Ids go up, and never below `atLeast` (replicas number runs across the cluster).
    this.insertRun = db.prepare<{ trigger: string; provider: string; startedAt: string; total: number; atLeast: number }>(
      `INSERT INTO sync_runs (id, trigger, provider, started_at, status, resorts_total)
       VALUES (max(coalesce((SELECT max(id) FROM sync_runs), 0) + 1, :atLeast), :trigger, :provider, :startedAt, 'RUNNING', :total)`,
    );
    this.finishRun = db.prepare<{ id: number; finishedAt: string; status: string; updated: number; failed: number; error: string | null }>(
      `UPDATE sync_runs SET finished_at = :finishedAt, status = :status, resorts_updated = :updated, resorts_failed = :failed, error = :error WHERE id = :id`,
    );
    this.listStmt = db.prepare<[number], SyncRunRecord>(`SELECT ${RUN_COLUMNS} FROM sync_runs ORDER BY id DESC LIMIT ?`);
    this.lastFinishedStmt = db.prepare<[], SyncRunRecord>(`SELECT ${RUN_COLUMNS} FROM sync_runs WHERE status <> 'RUNNING' ORDER BY id DESC LIMIT 1`);
    this.interruptStmt = db.prepare<{ at: string }>(
      `UPDATE sync_runs SET status = 'FAILED', finished_at = :at, error = 'interrupted: the process stopped during the run' WHERE status = 'RUNNING'`,
    );
    this.stageDay = db.prepare(DAILY_WEATHER.insert({ into: 'sync_staging', extra: { run_id: '?' } }));
    this.stageLift = db.prepare('INSERT INTO sync_staging_lifts (run_id, resort_id, ordinal, name, status) VALUES (?, ?, ?, ?, ?)');
  }

  startRun(trigger: SyncTrigger, provider: string, startedAt: string, total: number, atLeast = 1): number {
    return Number(this.insertRun.run({ trigger, provider, startedAt, total, atLeast }).lastInsertRowid);
  }

  finish(id: number, finishedAt: string, status: SyncRunStatus, updated: number, failed: number, error: string | null): void {
    this.finishRun.run({ id, finishedAt, status, updated, failed, error });
  }

  list(limit: number): SyncRunRecord[] {
    return this.listStmt.all(limit);
  }

  lastFinished(): SyncRunRecord | null {
    return this.lastFinishedStmt.get() ?? null;
  }

  /** At start-up: runs left RUNNING by a dead process failed; their staged rows are dropped. */
  recoverInterrupted(at: string): number {
    return this.db.transaction(() => {
      const n = this.interruptStmt.run({ at }).changes;
      this.db.exec('DELETE FROM sync_staging; DELETE FROM sync_staging_lifts;');
      return n;
    })();
  }

  /** Stages one resort's days (and live lifts) in one small transaction. */
  stage(runId: number, resortId: string, days: readonly StoredDay[], lifts: readonly LiveLift[] | null): void {
    this.db.transaction(() => {
      for (const d of days) this.stageDay.run(...DAILY_WEATHER.values(d), runId);
      for (const [i, l] of (lifts ?? []).entries()) this.stageLift.run(runId, resortId, i + 1, l.name, l.status);
    })();
  }

  /** Moves a run's staged rows into the served tables, all at once. */
  publish(runId: number, pruneBefore: string, liftSource: string, at: string): void {
    this.db.transaction(() => {
      this.db.prepare(`INSERT OR REPLACE INTO daily_weather (${WEATHER_COLUMNS}) SELECT ${WEATHER_COLUMNS} FROM sync_staging WHERE run_id = ?`).run(runId);
      this.db.prepare('DELETE FROM live_lifts WHERE resort_id IN (SELECT DISTINCT resort_id FROM sync_staging_lifts WHERE run_id = ?)').run(runId);
      this.db
        .prepare(
          `INSERT INTO live_lifts (resort_id, ordinal, name, status, source, updated_at) SELECT resort_id, ordinal, name, status, ?, ? FROM sync_staging_lifts WHERE run_id = ?`,
        )
        .run(liftSource, at, runId);
      this.db.prepare('DELETE FROM daily_weather WHERE date < ?').run(pruneBefore);
      this.discard(runId);
    })();
  }

  discard(runId: number): void {
    this.db.prepare('DELETE FROM sync_staging WHERE run_id = ?').run(runId);
    this.db.prepare('DELETE FROM sync_staging_lifts WHERE run_id = ?').run(runId);
  }
}
