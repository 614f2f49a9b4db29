import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

/** A subscription's results as they arrive, each with the moment it was read (Date.now()). */
export interface ResultStream<T = any> {
  /** The next `n` results, waiting for them (bounded by the stream's own signal). */
  take(n: number): Promise<T[]>;
  /** When each result taken so far arrived, in order. */
  readonly arrivals: number[];
  /** Results that came and were not taken yet. */
  pending(): number;
  close(): void;
}

/** A queue a reader fills and `take` empties; `fail` ends every wait with the stream's error. */
export function resultQueue<T>(close: () => void): ResultStream<T> & { push(value: T): void; fail(err: Error): void } {
  const items: { value: T; at: number }[] = [];
  const arrivals: number[] = [];
  let waiter: (() => void) | null = null;
  let failure: Error | null = null;
  return {
    arrivals,
    push(value) {
      items.push({ value, at: Date.now() });
      waiter?.();
    },
    fail(err) {
      failure = err;
      waiter?.();
    },
    pending: () => items.length,
    async take(n) {
      const out: T[] = [];
      while (out.length < n) {
        const item = items.shift();
        if (item) {
          out.push(item.value);
          arrivals.push(item.at);
          continue;
        }
        if (failure) throw new Error(`the stream ended after ${out.length} of ${n} results: ${failure.message}`);
        await new Promise<void>((resolve) => (waiter = resolve));
        waiter = null;
      }
      return out;
    },
    close,
  };
}

/**
 * A subscription over HTTP: SSE (text/event-stream) or multipart/mixed, each result parsed as it
 * arrives (multipart's empty `{}` parts are heartbeats, skipped). `signal` bounds the whole stream.
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
