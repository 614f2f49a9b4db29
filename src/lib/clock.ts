/**
 * The server's clock. Unset, it is the system's. With CLOCK_START (an ISO-8601 instant) it reads
 * that instant when the process starts and runs on in real time from there: a demonstration of a
 * winter day in July, or a test suite whose servers, tools and fake providers all agree on one date
 * (they would otherwise disagree across UTC midnight). Everything dated — the weather window,
 * seasons, quotas' months, sync runs, key records — follows it; durations and timers do not need to.
 */
export function clockFrom(start: string | null, wallMs: () => number = Date.now): () => Date {
  if (start === null) return () => new Date();
  const offset = Date.parse(start) - wallMs();
  return () => new Date(wallMs() + offset);
}
