import { connect, type Socket } from 'node:net';
import { request } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { negotiate, writeStream, type StreamFormat } from '../../src/transports/graphql/event-stream.js';
import { ANSWER_MS, closeServers, serving, until } from './serving.js';

/** Streams as SSE and multipart/mixed, written through an exchange on a real server and read raw. */
afterEach(() => {
  vi.useRealTimers();
  closeServers();
});

describe('the stream a client reads', () => {
  it('none when it names neither stream: JSON at once', () => {
    for (const accept of [undefined, '', 'application/json', 'text/html, */*']) expect(negotiate(accept)).toEqual({ single: 'json', stream: null });
  });

  it('either stream alone, or both: the first listed at equal q, the higher q first', () => {
    expect(negotiate('text/event-stream')).toEqual({ single: 'sse', stream: 'sse' });
    expect(negotiate('multipart/mixed')).toEqual({ single: 'multipart', stream: 'multipart' });
    expect(negotiate('multipart/mixed, text/event-stream')).toEqual({ single: 'multipart', stream: 'multipart' });
    expect(negotiate('text/event-stream, multipart/mixed')).toEqual({ single: 'sse', stream: 'sse' });
    expect(negotiate('multipart/mixed;q=0.5, text/event-stream')).toEqual({ single: 'sse', stream: 'sse' });
    expect(negotiate('application/json, multipart/mixed;deferSpec=20220824')).toEqual({ single: 'json', stream: 'multipart' });
    expect(negotiate('text/event-stream;q=0, application/json')).toEqual({ single: 'json', stream: null });
  });

  it('media types in any case (RFC 9110: they are case-insensitive)', () => {
    expect(negotiate('Text/Event-Stream')).toEqual({ single: 'sse', stream: 'sse' });
    expect(negotiate('application/json, MULTIPART/MIXED')).toEqual({ single: 'json', stream: 'multipart' });
  });
});

/** A source of parts the test releases one at a time, and whether it was stopped. */
function source() {
  const queue: { value?: unknown; done?: boolean; error?: Error }[] = [];
  let wake: (() => void) | null = null;
  const state = { returned: false };
  const iterable: AsyncIterable<unknown> = {
    [Symbol.asyncIterator]: () => ({
      async next() {
        while (queue.length === 0) await new Promise<void>((r) => (wake = r));
        const item = queue.shift()!;
        if (item.error) throw item.error;
        return item.done ? { done: true, value: undefined } : { done: false, value: item.value };
      },
      async return() {
        state.returned = true;
        return { done: true, value: undefined };
      },
    }),
  };
  const push = (item: (typeof queue)[number]) => {
    queue.push(item);
    wake?.();
  };
  return { iterable, state, push };
}

/** Reads a stream's body as it comes, decoded from HTTP/1.1 chunks. */
function reading(url: string) {
  const got = { text: '', ended: false, headers: {} as Record<string, string | string[] | undefined> };
  const req = request(url, { signal: AbortSignal.timeout(ANSWER_MS) }, (res) => {
    got.headers = res.headers;
    res.setEncoding('utf8');
    res.on('data', (c: string) => (got.text += c));
    res.on('end', () => (got.ended = true));
  });
  req.on('error', () => {});
  req.end();
  return { got, req };
}

async function streamOf(format: StreamFormat, options: { subscription?: boolean; ended?: Promise<never> } = {}) {
  const src = source();
  const done = { resolved: false };
  const url = await serving(async (ex) => {
    await writeStream(ex, format, src.iterable, { heartbeatMs: 1000, onError: (err) => ({ errors: [{ message: (err as Error).message }] }), ...options });
    done.resolved = true;
  });
  return { src, done, url };
}

describe('SSE', () => {
  it('opens with a comment, sends each part as an event, and completes when the source ends', async () => {
    const { src, done, url } = await streamOf('sse');
    const { got } = reading(url);
    await until(() => got.text === ':\n\n');
    expect([got.headers['content-type'], got.headers['cache-control'], got.headers['x-accel-buffering']]).toEqual([
      'text/event-stream; charset=utf-8',
      'no-store',
      'no',
    ]);
    src.push({ value: { data: { a: 1 } } });
    await until(() => got.text.endsWith('\n\n') && got.text.length > 3);
    src.push({ value: { data: { a: 2 } } });
    src.push({ done: true });
    await until(() => got.ended);
    expect(got.text).toBe(':\n\nevent: next\ndata: {"data":{"a":1}}\n\nevent: next\ndata: {"data":{"a":2}}\n\nevent: complete\ndata:\n\n');
    expect([done.resolved, src.state.returned]).toEqual([true, true]);
  });

  it('a part the source fails to make is answered with the error, and the stream completes', async () => {
    const { src, url } = await streamOf('sse');
    const { got } = reading(url);
    await until(() => got.text === ':\n\n');
    src.push({ error: new Error('the source broke') });
    await until(() => got.ended);
    expect(got.text).toBe(':\n\nevent: next\ndata: {"errors":[{"message":"the source broke"}]}\n\nevent: complete\ndata:\n\n');
  });

  it('ended for a reason: a last part names it, then it completes and the source is stopped', async () => {
    let end: (p: { status: number; code: string; detail: string }) => void = () => {};
    const ended = new Promise<never>((r) => (end = r as never));
    const { src, url } = await streamOf('sse', { ended });
    const { got } = reading(url);
    await until(() => got.text === ':\n\n');
    end({ status: 403, code: 'FORBIDDEN', detail: 'The key was revoked.' });
    await until(() => got.ended);
    expect(got.text).toBe(
      ':\n\nevent: next\ndata: {"errors":[{"message":"The key was revoked.","extensions":{"code":"FORBIDDEN"}}]}\n\nevent: complete\ndata:\n\n',
    );
    expect(src.state.returned).toBe(true);
  });

  it('a client that leaves stops the source, and no part is written after', async () => {
    const { src, done, url } = await streamOf('sse');
    const { got, req } = reading(url);
    await until(() => got.text === ':\n\n');
    req.destroy();
    await until(() => done.resolved);
    expect(src.state.returned).toBe(true);
  });

  it('a heartbeat comment every heartbeatMs while nothing waits to be sent', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { src, url } = await streamOf('sse');
    const { got } = reading(url);
    await until(() => got.text === ':\n\n');
    vi.advanceTimersByTime(999);
    expect(got.text).toBe(':\n\n');
    vi.advanceTimersByTime(1);
    await until(() => got.text === ':\n\n:\n\n');
    src.push({ done: true });
    await until(() => got.ended);
    // Ended, it beats no more: its timer is gone.
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5000);
    expect(got.text).toBe(':\n\n:\n\nevent: complete\ndata:\n\n');
  });
});

describe('a reader slower than its source', () => {
  it('is sent parts only as it takes them: none pulled while its socket waits to drain, the rest in order once it reads', async () => {
    const PART = 'x'.repeat(256 * 1024);
    let pulled = 0;
    let stop = false;
    const parts: AsyncIterable<unknown> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => (stop ? { done: true, value: undefined } : { done: false, value: { n: ++pulled, data: PART } }),
      }),
    };
    let server: Socket | null = null;
    const done = { resolved: false };
    const url = new URL(
      await serving(async (ex) => {
        server = ex.res.socket;
        await writeStream(ex, 'sse', parts, { heartbeatMs: 60_000, onError: () => ({}) });
        done.resolved = true;
      }),
    );
    // A client that sends its request and reads nothing until told.
    const client = connect(Number(url.port), url.hostname);
    client.pause();
    client.write(`GET / HTTP/1.1\r\nhost: x\r\n\r\n`);
    await until(() => server?.writableNeedDrain === true);
    const held = pulled;
    // Turns of the event loop with the socket full: nothing more is pulled from the source.
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    expect([pulled, server!.writableNeedDrain]).toEqual([held, true]);
    // The client reads: the socket drains, and the next parts are pulled and sent, in order.
    let text = '';
    client.setEncoding('utf8');
    client.on('data', (c: string) => (text += c.replaceAll('x', '')));
    client.resume();
    await until(() => pulled > held + 4);
    stop = true;
    await until(() => done.resolved && text.includes('event: complete'));
    const numbers = [...text.matchAll(/"n":(\d+)/g)].map((m) => Number(m[1]));
    expect(numbers).toEqual(Array.from({ length: pulled }, (_, i) => i + 1));
    client.destroy();
  });
});

describe('a source without return()', () => {
  it('ends the stream as any other: nothing is called that it does not have', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      let sent = false;
      const bare: AsyncIterable<unknown> = {
        [Symbol.asyncIterator]: () => ({
          async next() {
            if (sent) return { done: true, value: undefined };
            sent = true;
            return { done: false, value: { data: 1 } };
          },
        }),
      };
      const url = await serving((ex) => writeStream(ex, 'sse', bare, { heartbeatMs: 60_000, onError: () => ({}) }));
      const { got } = reading(url);
      await until(() => got.ended);
      expect(got.text).toBe(':\n\nevent: next\ndata: {"data":1}\n\nevent: complete\ndata:\n\n');
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});

describe('multipart/mixed', () => {
  it('parts between boundaries with their length; the closing boundary when the source ends', async () => {
    const { src, url } = await streamOf('multipart');
    const { got } = reading(url);
    await until(() => got.text === '\r\n---');
    expect(got.headers['content-type']).toBe('multipart/mixed; boundary="-"');
    src.push({ value: { data: { é: 1 } } });
    src.push({ done: true });
    await until(() => got.ended);
    expect(got.text).toBe('\r\n---\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 17\r\n\r\n{"data":{"é":1}}\r\n-----\r\n');
  });

  it('an answer in parts has no heartbeat; a subscription’s has an empty part', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const parts = await streamOf('multipart');
    const once = reading(parts.url);
    await until(() => once.got.text === '\r\n---');
    vi.advanceTimersByTime(3000);
    const subscription = await streamOf('multipart', { subscription: true });
    const live = reading(subscription.url);
    await until(() => live.got.text === '\r\n---');
    vi.advanceTimersByTime(1000);
    await until(() => live.got.text.length > 5);
    expect(live.got.text).toBe('\r\n---\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}\r\n---');
    expect(once.got.text).toBe('\r\n---');
    for (const s of [parts, subscription]) s.src.push({ done: true });
    await until(() => once.got.ended && live.got.ended);
  });
});
