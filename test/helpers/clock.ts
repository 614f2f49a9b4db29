import { inject } from 'vitest';

/**
 * The run's clock: it read `start` when the run began (test/global-setup.ts) and runs on in real
 * time. Every server of the suite — in-process ones by default, spawned ones through CLOCK_START —
 * its command-line tools and its fake providers read it, so they agree on the date whatever the
 * wall clock says (a run across UTC midnight, a run in July). Tests about a particular instant
 * give their servers a clock of their own (`clockAt`).
 */
export function runNow(): Date {
  const { start, wallAtStart } = inject('clock');
  return new Date(Date.parse(start) + (Date.now() - wallAtStart));
}

/** The environment a spawned server or tool needs to read the run's clock. */
export const clockEnv = (): { CLOCK_START: string } => ({ CLOCK_START: runNow().toISOString() });

/** A clock a test moves (for a server's `now`): it stands still until told. */
export function movableClock(iso: string) {
  let t = Date.parse(iso);
  return { now: () => new Date(t), advance: (ms: number) => void (t += ms) };
}
