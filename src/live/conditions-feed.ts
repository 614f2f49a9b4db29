import { ClientError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { Units } from '../domain/units.js';
import type { ResortSnapshot } from '../data/snapshots/snapshot.js';
import { conditionsView, type ConditionsView } from '../data/snapshots/views.js';
import { afterMicrotasks, nextTurn, STREAM_TURN_BUDGET_MS, turnSpent } from '../lib/turn.js';

/** Why an update was sent: declared once, for the schema and the feed. */
export const CONDITIONS_CHANGE_REASONS = ['INITIAL', 'SYNC', 'HOUR', 'LIFTS'] as const;
export type ConditionsChangeReason = (typeof CONDITIONS_CHANGE_REASONS)[number];

export interface ConditionsUpdate {
  resortId: string;
  conditions: ConditionsView;
  reason: ConditionsChangeReason;
  syncedAt: string;
}

/** A subscriber may fall this many whole rounds of updates behind (besides its first) before it is cut. */
export const ROUNDS_BEHIND = 2;

export interface ConditionsFeedDeps {
  /** The resorts' snapshots now, in one batch (an Error where one could not be built). */
  snapshots(ids: readonly string[]): Promise<(ResortSnapshot | Error)[]>;
  /** The version of the resort data now: it moves with the hour, the stored weather and the inventory. */
  version(): string;
  /** How often the version is compared while anyone listens (the hour turns with no event to say so). */
  checkEveryMs: number;
  logger: Logger;
}

/** What every subscriber of one resort in one units system shares: the last report sent. */
interface Topic {
  resortId: string;
  units: Units;
  subscribers: Set<Subscriber>;
  /**
   * The last update sent to this topic's subscribers, what it is compared by, and the same report
   * as a new subscriber's first (one object for all of them, so it is executed and serialized once).
   */
  last: { update: ConditionsUpdate; key: string; initial?: ConditionsUpdate } | null;
  /** The round of changes that last changed its report. */
  changedIn: number;
}

/**
 * Subscribers told of a change in one turn of the event loop at most (and fewer once the turn's
 * budget is spent); topics whose reports are made in one turn (the views of snapshots built).
 */
export const FAN_OUT_SLICE = 200;
/** The most subscribers told before their updates are let run and be written. */
const MAX_GROUP = 8;
/** A subscriber whose updates ran and were written in less than this is cheap: the next group may be larger (ms). */
const CHEAP_SUBSCRIBER_MS = 0.2;
/** Resorts whose snapshots are read and built in one turn when reports are made. */
const SNAPSHOTS_PER_TURN = 8;

interface Subscriber {
  queue: ConditionsUpdate[];
  /** More than this many waiting updates and the subscriber is cut. */
  max: number;
  wake: (() => void) | null;
  cut: boolean;
  left: boolean;
  topics: Topic[];
  /** The round of changes it was last told of. */
  toldIn: number;
  /** Stops listening: out of every topic, the reader woken. */
  leave: () => void;
}

/** A subscriber read too slowly: its buffer filled, and its stream ends with this error. */
export class TooSlowError extends ClientError {
  constructor(max: number) {
    super(`Live updates stopped: the client read more slowly than they came (at most ${max} may wait). Subscribe again.`, {
      extensions: { code: 'TOO_SLOW', status: 429 },
    });
  }
}

/**
 * Live conditions: who listens to which resort, and what each was last told. A change (a sync run
 * published or a window applied here, the hour turning, anything that moves the data's version) is
 * turned into one report per resort and units, shared by every subscriber of that resort; a report
 * and `syncedAt` identical to the last one sent are not sent again. Work is done one change at a
 * time, in order, so a subscriber's first report and the changes after it never cross.
 */
export class ConditionsFeed {
  private readonly topics = new Map<string, Topic>();
  /** The data version the topics' `last` reports were made at. */
  private version = '';
  private work: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Subscribers that joined and have not left. */
  private listening = 0;
  /** Updates queued for subscribers since start (each subscriber's copy counts). */
  private queued = 0;
  /** Rounds of changes told so far. */
  private rounds = 0;
  /** CPU spent on changes since start: reports made, subscribers told, and the turns their updates were written in (µs). */
  private fanOutMicros = 0;

  constructor(private readonly deps: ConditionsFeedDeps) {}

  /**
   * The current report of each resort (INITIAL), then every change, until the consumer stops
   * reading (`return`) or `signal` aborts. `ids` must name existing resorts (the schema checks).
   * Not an async generator: a generator's `return()` waits for the `next()` it is suspended in,
   * and a quiet resort's next update may be hours away; this one lets go at once.
   */
  subscribe(ids: readonly string[], units: Units, signal?: AbortSignal): AsyncIterableIterator<ConditionsUpdate> {
    const unique = [...new Set(ids)];
    const s: Subscriber = {
      queue: [],
      max: unique.length * (1 + ROUNDS_BEHIND),
      wake: null,
      cut: false,
      left: false,
      topics: [],
      toldIn: 0,
      leave: () => leave(),
    };
    const leave = () => {
      if (s.left) return;
      s.left = true;
      if (s.topics.length > 0) this.listening--;
      signal?.removeEventListener('abort', leave);
      for (const t of s.topics) {
        t.subscribers.delete(s);
        if (t.subscribers.size === 0 && this.topics.get(keyOf(t.resortId, t.units)) === t) this.topics.delete(keyOf(t.resortId, t.units));
      }
      if (this.topics.size === 0) this.stopChecking();
      s.wake?.();
    };
    signal?.addEventListener('abort', leave, { once: true });
    let joined: Promise<void> | null = null;
    let ready = false;
    const done = { done: true as const, value: undefined };
    // The next update, or the promise of it. No async function: a subscriber's next() runs for
    // every update it is sent, and each layer of promises is made again each time (and kept until
    // the next update, long enough to be promoted and collected by a full GC).
    const take = (): IteratorResult<ConditionsUpdate> | Promise<IteratorResult<ConditionsUpdate>> => {
      if (s.queue.length > 0) return { done: false, value: s.queue.shift()! };
      if (s.cut) {
        leave();
        throw new TooSlowError(s.max);
      }
      if (s.left || signal?.aborted || this.closed) {
        leave();
        return done;
      }
      return new Promise((resolve, reject) => {
        s.wake = () => {
          s.wake = null;
          try {
            resolve(take());
          } catch (err) {
            reject(err);
          }
        };
      });
    };
    const iterator: AsyncIterableIterator<ConditionsUpdate> = {
      next: () => {
        if (!ready) return (joined ??= this.join(s, unique, units).then(() => void (ready = true))).then(take);
        try {
          const next = take();
          return next instanceof Promise ? next : Promise.resolve(next);
        } catch (err) {
          return Promise.reject(err);
        }
      },
      return: () => {
        leave();
        return Promise.resolve(done);
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /**
   * A subscriber joins its topics: those already listened to first catch up (their subscribers
   * are told), then nothing else runs until its first reports are queued.
   */
  private join(s: Subscriber, ids: readonly string[], units: Units): Promise<void> {
    return this.serially(async () => {
      await this.refresh();
      if (s.left) return;
      s.topics = ids.map((id) => this.topicOf(id, units));
      this.listening++;
      for (const t of s.topics) t.subscribers.add(s);
      await this.fill(s.topics.filter((t) => !t.last));
      for (const t of s.topics) if (t.last) s.queue.push((t.last.initial ??= { ...t.last.update, reason: 'INITIAL' }));
      this.queued += s.queue.length;
      this.startChecking();
    });
  }

  /** The data changed (a run published here, a window applied): tell subscribers now. */
  changed(): Promise<void> {
    return this.serially(() => this.refresh());
  }

  /** How many streams listen, to how many resort reports, the updates queued for them so far and the CPU that took (for /metrics). */
  get stats(): { topics: number; subscribers: number; updates: number; fanOutCpuSeconds: number } {
    return { topics: this.topics.size, subscribers: this.listening, updates: this.queued, fanOutCpuSeconds: this.fanOutMicros / 1e6 };
  }

  /** Ends every subscription (at shutdown). */
  close(): void {
    this.closed = true;
    this.stopChecking();
    for (const t of this.topics.values()) for (const s of t.subscribers) s.wake?.();
  }

  private topicOf(resortId: string, units: Units): Topic {
    const key = keyOf(resortId, units);
    let topic = this.topics.get(key);
    if (!topic) this.topics.set(key, (topic = { resortId, units, subscribers: new Set(), last: null, changedIn: 0 }));
    return topic;
  }

  private serially(task: () => Promise<void>): Promise<void> {
    const run = this.work.then(task);
    this.work = run.catch((err: unknown) => this.deps.logger.error({ err }, 'live conditions could not be updated'));
    return run;
  }

  /** When the data's version moved, every topic's report is made again and sent where it changed. */
  private async refresh(): Promise<void> {
    const version = this.deps.version();
    if (version === this.version) return;
    this.version = version;
    if (this.topics.size === 0) return;
    const cpu = process.cpuUsage();
    const changed = await this.tell([...this.topics.values()]);
    // Every update is written once the turn after the last slice has run: counted then.
    await nextTurn();
    const spent = process.cpuUsage(cpu);
    this.fanOutMicros += spent.user + spent.system;
    // The round's update objects are let go (a subscriber still reading keeps its own): what was
    // made of them for every subscriber (shared-events.ts, part-json.ts) goes with them.
    for (const t of changed) if (t.last) t.last = { update: { ...t.last.update }, key: t.last.key };
  }

  /**
   * Each topic's report made again; where it changed, each subscriber of the changed topics gets
   * all of its new updates at once (so they leave in one write), one subscriber after another,
   * as many a turn as its budget allows.
   */
  private async tell(topics: readonly Topic[]): Promise<Topic[]> {
    const fresh = await this.reportsOf(topics);
    const round = ++this.rounds;
    const changed: Topic[] = [];
    for (const [i, t] of topics.entries()) {
      const next = fresh[i];
      if (!next || next.key === t.last?.key) continue;
      // A topic whose first report could not be made gets it now, as its first.
      const update: ConditionsUpdate = { ...next.update, reason: t.last ? reasonOf(t.last.update, next.update) : 'INITIAL' };
      t.last = { update, key: next.key };
      t.changedIn = round;
      changed.push(t);
    }
    let toldInTurn = 0;
    // Subscribers told before the updates they were given are executed and written (the
    // microtasks those set going), and when the group was started.
    let group = 1;
    let inGroup = 0;
    let groupStartedAt = 0;
    for (const t of changed) {
      for (const s of t.subscribers) {
        if (s.toldIn === round) continue;
        s.toldIn = round;
        // The turn's clock starts before its first subscriber's work, not after.
        if (toldInTurn === 0) turnSpent(STREAM_TURN_BUDGET_MS);
        if (inGroup === 0) groupStartedAt = performance.now();
        for (const mine of s.topics) {
          if (mine.changedIn !== round) continue;
          push(s, mine.last!.update);
          this.queued++;
        }
        toldInTurn++;
        if (++inGroup < group && toldInTurn < FAN_OUT_SLICE) continue;
        // Their updates run before more are told, so the turn's budget counts them; each socket's
        // leave in one write.
        await afterMicrotasks();
        // Cheap subscribers are told a few at a time (a wait of its own each cost more than their
        // writes), costly ones (a large selection, each its own) one at a time, so a turn keeps to its budget.
        group = (performance.now() - groupStartedAt) / inGroup < CHEAP_SUBSCRIBER_MS ? Math.min(2 * group, MAX_GROUP) : 1;
        inGroup = 0;
        if (toldInTurn >= FAN_OUT_SLICE || turnSpent(STREAM_TURN_BUDGET_MS)) {
          toldInTurn = 0;
          await nextTurn();
        }
      }
    }
    return changed;
  }

  /** Topics with no report yet get the current one. */
  private async fill(topics: readonly Topic[]): Promise<void> {
    if (topics.length === 0) return;
    const fresh = await this.reportsOf(topics);
    for (const [i, t] of topics.entries()) if (fresh[i]) t.last = fresh[i]!;
  }

  /**
   * One report per topic: the resorts' snapshots a few a turn (a resort's snapshot is read and
   * built in about a millisecond, and a turn must stay short for the requests between), each
   * view once per units.
   */
  private async reportsOf(topics: readonly Topic[]): Promise<({ update: ConditionsUpdate; key: string } | null)[]> {
    const ids = [...new Set(topics.map((t) => t.resortId))];
    const byId = new Map<string, ResortSnapshot | Error>();
    for (let start = 0; start < ids.length; start += SNAPSHOTS_PER_TURN) {
      if (start > 0) await nextTurn();
      const some = ids.slice(start, start + SNAPSHOTS_PER_TURN);
      const snapshots = await this.deps.snapshots(some);
      for (const [i, id] of some.entries()) byId.set(id, snapshots[i]!);
    }
    const reports: ({ update: ConditionsUpdate; key: string } | null)[] = [];
    for (const t of topics) {
      if (reports.length > 0 && reports.length % FAN_OUT_SLICE === 0) await nextTurn();
      const s = byId.get(t.resortId);
      if (!s || s instanceof Error) {
        if (s) this.deps.logger.warn({ resort: t.resortId, cause: s.message }, 'a live report could not be made');
        reports.push(null);
        continue;
      }
      const conditions = conditionsView(s, t.units);
      const update: ConditionsUpdate = { resortId: t.resortId, conditions, reason: 'SYNC', syncedAt: s.syncedAt };
      reports.push({ update, key: `${s.syncedAt}|${JSON.stringify(conditions)}` });
    }
    return reports;
  }

  private startChecking(): void {
    if (this.timer || this.closed || this.topics.size === 0) return;
    this.timer = setInterval(() => void this.serially(() => this.refresh()).catch(() => {}), this.deps.checkEveryMs);
    this.timer.unref();
  }

  private stopChecking(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

const keyOf = (resortId: string, units: Units) => `${resortId}/${units}`;

/** The most telling cause of a change: new data fetched, else a new hour, else lift status. */
function reasonOf(before: ConditionsUpdate, after: ConditionsUpdate): ConditionsChangeReason {
  if (after.syncedAt !== before.syncedAt) return 'SYNC';
  if (after.conditions.updatedAt !== before.conditions.updatedAt) return 'HOUR';
  if (after.conditions.openLifts !== before.conditions.openLifts || after.conditions.totalLifts !== before.conditions.totalLifts) return 'LIFTS';
  // The stored data changed without a new fetch (an import): new data all the same.
  return 'SYNC';
}

/** Queues an update for a subscriber; one already `max` behind is cut: its queue dropped, out of every topic. */
function push(s: Subscriber, update: ConditionsUpdate): void {
  if (s.cut) return;
  if (s.queue.length < s.max) {
    s.queue.push(update);
    s.wake?.();
    return;
  }
  s.cut = true;
  s.queue.length = 0;
  s.leave();
}
