import type { ServerResponse } from 'node:http';

/**
 * How many answers may wait for the end of the event-loop turn: the first of them waits for the
 * others' work (about 60 µs each), so at most ~1 ms.
 */
const MAX_WAITING = 16;

const waiting: (ServerResponse | string | Buffer | undefined)[] = [];
let scheduled = false;

function endAll(): void {
  scheduled = false;
  const batch = waiting.splice(0);
  for (let i = 0; i < batch.length; i += 2) (batch[i] as ServerResponse).end(batch[i + 1] as string | Buffer | undefined);
}

/**
 * Ends a response when this turn of the event loop has answered what it read, with the other
 * answers of the turn, instead of at once. A write to a socket whose reader sleeps pays for waking
 * it (measured with perf: most of the kernel time of a ZIP lookup's writev); answers written back
 * to back find a client that reads many connections (a load balancer, a proxy, a load generator)
 * already awake. Server CPU per ZIP lookup 84–108 → 64–70 µs, kernel time 20–27 → 9–11 µs
 * (BENCHMARKS.md). Order on a connection is kept (Node answers a connection's requests in turn,
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
