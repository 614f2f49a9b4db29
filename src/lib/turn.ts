import type { ServerResponse } from 'node:http';

/**
 * Turns of the event loop: answers end when the turn that made them does, and long work yields
 * turns to let requests in. One module, because the two must agree: work that yields ends the
 * waiting answers first, or an answer made in a turn would wait behind a slice of that work.
 */

/**
 * How many answers may wait for the end of the event-loop turn: the first of them waits for the
 * others' work, so this bounds its wait to a millisecond or so (BENCHMARKS.md, design figures: answers of a turn).
 */
const MAX_WAITING = 16;

const waiting: (ServerResponse | string | Buffer | undefined)[] = [];
let scheduled = false;

/** Ends every answer waiting (at the end of the turn, or when one yields it). */
function endAll(): void {
  scheduled = false;
  const batch = waiting.splice(0);
  for (let i = 0; i < batch.length; i += 2) {
    const res = batch[i] as ServerResponse;
    try {
      res.end(batch[i + 1] as string | Buffer | undefined);
    } catch (err) {
      // One answer that cannot end (its socket gone wrong) must not keep the others from ending,
      // nor throw out of setImmediate (which would end the process): its connection is cut.
      res.destroy(err as Error);
    }
  }
}

/**
 * Ends a response when this turn of the event loop has answered what it read, with the other
 * answers of the turn, instead of at once. A write to a socket whose reader sleeps pays for waking
 * it (perf: most of the kernel time of a ZIP lookup's writev); answers written back to back find
 * a client that reads many connections (a load balancer, a proxy, a load generator) already awake
 * (BENCHMARKS.md, design figures: answers of a turn). Order on a connection is kept (Node answers a connection's requests in turn,
 * and these are ended first in, first out); the head is written (and `headersSent` true) before.
 */
export function endSoon(res: ServerResponse, body?: string | Buffer): void {
  waiting.push(res, body);
  if (waiting.length >= 2 * MAX_WAITING) endAll();
  else if (!scheduled) {
    scheduled = true;
    setImmediate(endAll);
  }
}

/** Slices of long work waiting for their turn, first come first served. */
const slices: (() => void)[] = [];
let pumping = false;

/** Runs one slice, then gives the loop a whole turn (its I/O: requests read, answers written) before the next. */
function runOneSlice(): void {
  if (waiting.length) endAll();
  slices.shift()!();
  if (slices.length) setImmediate(runOneSlice);
  else pumping = false;
}

/**
 * Lets requests in between slices of long work (a history's sample points, a weather fill, a sync
 * run): resumes in a later turn's check phase, after ending the answers that wait (a slice queued
 * before them would otherwise run first). One slice per turn across all the work that yields, in
 * the order it asked: a dozen histories computed at once take turns with each other and with the
 * requests, instead of all running their next slice in the same turn.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    slices.push(resolve);
    if (!pumping) {
      pumping = true;
      setImmediate(runOneSlice);
    }
  });
}

/** When the work of this turn of the event loop was first asked about (0: not yet in this turn). */
let turnStartedAt = 0;
const newTurn = () => void (turnStartedAt = 0);

/**
 * Whether the work of this turn of the event loop has run for more than `budgetMs` since it first
 * asked: work made of many small pieces (a live change's updates for thousands of subscribers)
 * asks before each piece and, once it is spent, goes on in a later turn (`nextTurn`), so requests
 * are read and answered between.
 */
export function turnSpent(budgetMs: number): boolean {
  const now = performance.now();
  if (turnStartedAt === 0) {
    turnStartedAt = now;
    setImmediate(newTurn);
    return false;
  }
  return now - turnStartedAt > budgetMs;
}

/**
 * The longest a turn of the event loop spends on streamed work (live updates told, parts of
 * streams pulled and written) before the rest waits for a later turn (ms).
 */
export const STREAM_TURN_BUDGET_MS = 4;

/**
 * Resolves once the microtasks queued so far, and those they queue, have run (ticks come after
 * them); a reader waiting on its socket (a slow client) is not waited for.
 */
export const afterMicrotasks = () => new Promise<void>((resolve) => process.nextTick(resolve));

/** Streams' next parts waiting for a turn with budget left, first come first served. */
const nextParts: (() => void)[] = [];
let partsScheduled = false;

/**
 * Pulls a stream's next part now while this turn's budget for streamed work lasts, else in a
 * later turn. A stream's parts may come back to back (a subscriber's queued updates, each
 * executed as it is pulled, or a socket's written callback releasing many streams at once); this
 * way no turn runs more than the budget and one part, whatever the parts cost, and the waiting
 * ones run as many a turn as the budget allows.
 */
export function pullWhileTurnLasts(next: () => void): void {
  if (!partsScheduled && !turnSpent(STREAM_TURN_BUDGET_MS)) {
    next();
    return;
  }
  nextParts.push(next);
  if (!partsScheduled) {
    partsScheduled = true;
    void nextTurn().then(pullWaitingParts);
  }
}

async function pullWaitingParts(): Promise<void> {
  while (nextParts.length > 0) {
    turnSpent(STREAM_TURN_BUDGET_MS);
    // Each part's work (its execution, its write) runs before the budget is asked again.
    while (nextParts.length > 0 && !turnSpent(STREAM_TURN_BUDGET_MS)) {
      nextParts.shift()!();
      await afterMicrotasks();
    }
    if (nextParts.length > 0) await nextTurn();
  }
  partsScheduled = false;
}
