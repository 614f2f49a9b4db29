import type { RunningApp } from '../../src/app/start.js';
import { rawSocket, type RawSocket } from './raw-socket.js';
import type { GqlRequest } from './transports.js';

/** How a subscription ended: its last errors (the reason, when the server gave one) and a WebSocket's close code. */
export interface StreamEnd {
  errors?: { message: string; extensions?: Record<string, any> }[];
  closeCode?: number;
}

/** One subscription as a client holds it: its results so far, how it ended, or why it was refused. */
export interface HeldStream {
  /** Refused before it started: the problem (HTTP) or the `error` message's errors (WebSocket). */
  refused?: { status: number | null; code: string; message: string; bound?: string };
  results: any[];
  ended: Promise<StreamEnd>;
  close(): void;
}

/** A client of one kind holding subscriptions: over HTTP each on a connection of its own, over a WebSocket all on one socket. */
export interface StreamSession {
  subscribe(request: GqlRequest): Promise<HeldStream>;
  /** A query on the same way in (the WebSocket's own socket): it still answers. */
  query(request: GqlRequest): Promise<any>;
  close(): void;
}

/** A long-lived channel: a row of the transport matrix for the rules of what stays open. */
export interface StreamRow {
  name: string;
  session(app: RunningApp, key: string): Promise<StreamSession>;
}

function httpRow(format: 'sse' | 'multipart', method: 'POST' | 'GET'): StreamRow {
  const accept = format === 'sse' ? 'text/event-stream' : 'multipart/mixed';
  return {
    name: `${method}, ${format === 'sse' ? 'SSE' : 'multipart'}`,
    async session(app, key) {
      const open: HeldStream[] = [];
      return {
        async subscribe(request) {
          const abort = new AbortController();
          const search = new URLSearchParams({ query: request.query ?? '', ...(request.variables ? { variables: JSON.stringify(request.variables) } : {}) });
          const res = await fetch(method === 'GET' ? `${app.url}/graphql?${search}` : `${app.url}/graphql`, {
            method,
            headers: { accept, 'x-api-key': key, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
            ...(method === 'POST' ? { body: JSON.stringify(request) } : {}),
            signal: abort.signal,
          });
          if (!(res.headers.get('content-type') ?? '').startsWith(accept)) {
            const body = await res.json();
            return {
              refused: { status: res.status, code: body.code, message: body.detail, bound: body.errors?.[0]?.bound },
              results: [],
              ended: Promise.resolve({}),
              close: () => undefined,
            };
          }
          const held: HeldStream = { results: [], ended: read(res, format, (r) => held.results.push(r)), close: () => abort.abort() };
          open.push(held);
          // Its first result: the stream is live.
          const t0 = Date.now();
          while (held.results.length === 0) {
            if (Date.now() - t0 > 20_000) throw new Error(`${format} over ${method}: no first result within 20 s`);
            await Promise.race([held.ended, new Promise((r) => setTimeout(r, 5))]);
          }
          return held;
        },
        async query(request) {
          const res = await fetch(`${app.url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': key },
            body: JSON.stringify(request),
          });
          return res.json();
        },
        close: () => {
          for (const s of open) s.close();
        },
      };
    },
  };
}

/** Reads an SSE or multipart stream, each result to `push`; resolves with the last one's errors when it ends. */
async function read(res: Response, format: 'sse' | 'multipart', push: (result: any) => void): Promise<StreamEnd> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let last: any = null;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      const parts = buffer.split(format === 'sse' ? '\n\n' : '\r\n---');
      buffer = parts.pop()!;
      for (const part of parts) {
        let json: any = null;
        if (format === 'sse') {
          const data = part.split('\n').find((l) => l.startsWith('data: '));
          if (part.startsWith('event: next') && data) json = JSON.parse(data.slice(6));
        } else {
          const at = part.indexOf('\r\n\r\n');
          if (at >= 0) json = JSON.parse(part.slice(at + 4));
          if (json && Object.keys(json).length === 0) json = null;
        }
        if (json) {
          last = json;
          push(json);
        }
      }
    }
  } catch {
    // The client let go of it.
  }
  return last?.errors ? { errors: last.errors } : {};
}

const wsRow: StreamRow = {
  name: 'WebSocket (graphql-transport-ws)',
  async session(app, key) {
    const socket: RawSocket = rawSocket(app);
    await socket.init(key);
    let next = 0;
    const closed = socket.closed.then(({ code }) => code);
    return {
      async subscribe(request) {
        const id = `s${next++}`;
        socket.send({ id, type: 'subscribe', payload: request });
        const first = await socket.next((m) => m.id === id && (m.type === 'next' || m.type === 'error'));
        if (first.type === 'error')
          return {
            refused: { status: null, code: first.payload[0].extensions?.code, message: first.payload[0].message },
            results: [],
            ended: Promise.resolve({}),
            close: () => undefined,
          };
        const held: HeldStream = {
          results: socket.messages.filter((m) => m.id === id && m.type === 'next').map((m) => m.payload),
          // An `error` for its id (then the close the server says it with), or its `complete`.
          ended: socket
            .next((m) => m.id === id && (m.type === 'error' || m.type === 'complete'), 60_000)
            .then(
              async (end) => (end.type === 'error' ? { errors: end.payload, closeCode: await closed } : {}),
              async () => ({ closeCode: await closed }),
            ),
          close: () => socket.send({ id, type: 'complete' }),
        };
        return held;
      },
      async query(request) {
        const id = `q${next++}`;
        socket.send({ id, type: 'subscribe', payload: request });
        return (await socket.next((m) => m.id === id && (m.type === 'next' || m.type === 'error'))).payload;
      },
      close: () => socket.socket.close(),
    };
  },
};

/** Every way a subscription stays open: each a row of the rules about what stays open. */
export const STREAM_ROWS: readonly StreamRow[] = [
  httpRow('sse', 'POST'),
  httpRow('sse', 'GET'),
  httpRow('multipart', 'POST'),
  httpRow('multipart', 'GET'),
  wsRow,
];
