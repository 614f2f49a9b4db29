import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

/** How long `take` waits for the results it asks for before failing (below the test's own limit). */
export const TAKE_MS = 20_000;

/** A subscription's results as they arrive. */
export interface ResultStream<T = any> {
  /**
   * The next `n` results, waiting for them: fails, naming how many came, when the stream ends
   * first or `ms` pass (a missing update is a failure, never a hang).
   */
  take(n: number, ms?: number): Promise<T[]>;
  close(): void;
}

/** A queue a reader fills and `take` empties; `fail` ends every wait with the stream's error. */
export function resultQueue<T>(close: () => void): ResultStream<T> & { push(value: T): void; fail(err: Error): void } {
  const items: T[] = [];
  let waiter: (() => void) | null = null;
  let failure: Error | null = null;
  return {
    push(value) {
      items.push(value);
      waiter?.();
    },
    fail(err) {
      failure = err;
      waiter?.();
    },
    async take(n, ms = TAKE_MS) {
      const out: T[] = [];
      const deadline = Date.now() + ms;
      while (out.length < n) {
        if (items.length > 0) {
          out.push(items.shift()!);
          continue;
        }
        if (failure) throw new Error(`the stream ended after ${out.length} of ${n} results: ${failure.message}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`${out.length} of ${n} results came within ${ms} ms: ${JSON.stringify(out).slice(0, 300)}`);
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          waiter = resolve;
          timer = setTimeout(resolve, left);
        });
        clearTimeout(timer);
        waiter = null;
      }
      return out;
    },
    close,
  };
}

/**
 * A subscription over HTTP: SSE (text/event-stream) or multipart/mixed, each result parsed as it
 * arrives (multipart's empty `{}` parts are heartbeats, skipped). `signal` bounds the whole stream,
 * `take` each wait.
 */
export async function httpSubscription(
  url: string,
  format: 'sse' | 'multipart',
  request: { query: string; variables?: Record<string, unknown> },
  key: string,
  signal: AbortSignal,
): Promise<ResultStream & { status: number }> {
  const abort = new AbortController();
  signal.addEventListener('abort', () => abort.abort(signal.reason), { once: true });
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: format === 'sse' ? 'text/event-stream' : 'multipart/mixed', 'x-api-key': key },
    body: JSON.stringify(request),
    signal: abort.signal,
  });
  const queue = resultQueue<any>(() => abort.abort());
  const streamed = (res.headers.get('content-type') ?? '').startsWith(format === 'sse' ? 'text/event-stream' : 'multipart/mixed');
  if (!streamed) {
    queue.push(await res.json());
    queue.fail(new Error('not a stream'));
    return Object.assign(queue, { status: res.status });
  }
  void (async () => {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        const separator = format === 'sse' ? '\n\n' : '\r\n---';
        const parts = buffer.split(separator);
        buffer = parts.pop()!;
        for (const part of parts) {
          if (format === 'sse') {
            const data = part.split('\n').find((l) => l.startsWith('data: '));
            if (part.startsWith('event: next') && data) queue.push(JSON.parse(data.slice(6)));
          } else {
            const body = part.indexOf('\r\n\r\n');
            if (body < 0) continue;
            const json = JSON.parse(part.slice(body + 4));
            if (Object.keys(json).length > 0) queue.push(json);
          }
        }
      }
      queue.fail(new Error('the server ended the stream'));
    } catch (err) {
      queue.fail(err as Error);
    }
  })();
  return Object.assign(queue, { status: res.status });
}

/** A subscription over graphql-ws (the `ws` package: Node 20 has no WebSocket of its own). */
export function wsSubscription(url: string, request: { query: string; variables?: Record<string, unknown> }, key: string): ResultStream {
  const client = createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { 'x-api-key': key },
    retryAttempts: 0,
  });
  let stop = () => {};
  const queue = resultQueue<any>(() => {
    stop();
    void client.dispose();
  });
  stop = client.subscribe(request, {
    next: (result) => queue.push(result),
    error: (err) => queue.fail(err instanceof Error ? err : new Error(JSON.stringify(err))),
    complete: () => queue.fail(new Error('completed')),
  });
  return queue;
}
