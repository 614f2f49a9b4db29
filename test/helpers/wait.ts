/** Polls `probe` until `ok` says yes; fails with the last value after `ms`. */
export async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000, everyMs = 50): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting; last: ${JSON.stringify(v).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * `promise`, or a failure saying what did not happen within `ms`: a close, an answer or a start
 * that never comes fails the test instead of holding it. `what` is read only then (it may describe
 * what came instead).
 */
export async function within<T>(promise: Promise<T>, what: string | (() => string), ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not within ${ms} ms: ${typeof what === 'string' ? what : what()}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads a GraphQL subscription's server-sent events, each event's `data[field]`, until `enough`
 * says so or the stream ends. The caller bounds it with the request's abort signal.
 */
export async function readEvents<T>(res: Response, field: string, enough: (events: T[]) => boolean): Promise<T[]> {
  const reader = res.body!.getReader();
  const events: T[] = [];
  let buffer = '';
  while (!enough(events)) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += new TextDecoder().decode(value);
    const parts = buffer.split('\n\n');
    buffer = parts.pop()!;
    for (const p of parts) {
      const data = p.split('\n').find((l) => l.startsWith('data:'));
      if (data) events.push(JSON.parse(data.slice(5)).data[field] as T);
    }
  }
  return events;
}
