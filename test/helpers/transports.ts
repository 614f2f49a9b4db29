import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { RunningApp } from '../../src/app/start.js';
import { TEST_KEY } from './server.js';

/** A GraphQL request as any transport carries it. */
export interface GqlRequest {
  query?: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  extensions?: Record<string, unknown>;
  documentId?: string;
}

/** What came back, the same shape whatever the transport: the HTTP status (none over a WebSocket) and the first result. */
export interface GqlAnswer {
  status: number | null;
  body: { data?: any; errors?: { message: string; extensions?: Record<string, any> }[]; extensions?: Record<string, any> };
  /** The WebSocket's close code, when the server closed it instead of answering. */
  closed?: number;
}

export interface SendOptions {
  /** The key to present; null for none. */
  key?: string | null;
  /** Extra request headers (HTTP transports). */
  headers?: Record<string, string>;
}

/** One way into /graphql: a row of the transport matrix. */
export interface Transport {
  name: string;
  /** It is an HTTP GET (mutations may not run, CSRF applies). */
  get: boolean;
  /** It carries variables, extensions and operationName (application/graphql carries only the text). */
  params: boolean;
  send(app: RunningApp, request: GqlRequest, options?: SendOptions): Promise<GqlAnswer>;
}

/** How long a transport waits for an answer before failing, naming itself (below the test's own limit). */
export const ANSWER_MS = 20_000;

/** An HTTP exchange bounded by ANSWER_MS: one whose (first) answer does not come fails instead of waiting on. */
async function bounded<T>(name: string, exchange: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const signal = AbortSignal.timeout(ANSWER_MS);
  try {
    return await exchange(signal);
  } catch (err) {
    if (signal.aborted) throw new Error(`${name}: no answer within ${ANSWER_MS} ms`);
    throw err;
  }
}

const keyHeader = (options: SendOptions): Record<string, string> => (options.key === null ? {} : { 'x-api-key': options.key ?? TEST_KEY });

function searchOf(request: GqlRequest): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(request)) if (v !== undefined) params.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  return params.toString();
}

/** The first result of an answer, whatever it came as: JSON, SSE's first `next` event, or multipart's first part. */
async function firstResult(res: Response): Promise<GqlAnswer> {
  const type = res.headers.get('content-type') ?? '';
  const text = await readSome(res);
  if (type.startsWith('text/event-stream')) {
    const event = text.split('\n\n').find((e) => e.startsWith('event: next'));
    const data = event?.split('\n').find((l) => l.startsWith('data: '));
    if (!data) throw new Error(`no next event in ${JSON.stringify(text.slice(0, 300))}`);
    return { status: res.status, body: JSON.parse(data.slice(6)) };
  }
  if (type.startsWith('multipart/mixed')) {
    const part = text.split('\r\n---').find((p) => p.includes('\r\n\r\n'));
    if (!part) throw new Error(`no part in ${JSON.stringify(text.slice(0, 300))}`);
    return { status: res.status, body: JSON.parse(part.slice(part.indexOf('\r\n\r\n') + 4)) };
  }
  return { status: res.status, body: JSON.parse(text) };
}

/** Reads until the first result is complete (a subscription's stream never ends by itself), then lets the stream go. */
async function readSome(res: Response): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const type = res.headers.get('content-type') ?? '';
  const complete = () =>
    type.startsWith('text/event-stream')
      ? /event: next\ndata: .*\n\n/.test(text)
      : type.startsWith('multipart/mixed')
        ? /\r\n\r\n[\s\S]*\r\n---/.test(text)
        : false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (complete()) {
      await reader.cancel();
      break;
    }
  }
  return text;
}

const post = (contentType: string, accept: string, body: (r: GqlRequest) => string, name: string): Transport => ({
  name,
  get: false,
  params: contentType !== 'application/graphql',
  send(app, request, options = {}) {
    return bounded(name, async (signal) => {
      const res = await fetch(`${app.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': contentType, accept, ...keyHeader(options), ...options.headers },
        body: body(request),
        signal,
      });
      return firstResult(res);
    });
  },
});

const get = (accept: string, name: string): Transport => ({
  name,
  get: true,
  params: true,
  send(app, request, options = {}) {
    return bounded(name, async (signal) => {
      const res = await fetch(`${app.url}/graphql?${searchOf(request)}`, { headers: { accept, ...keyHeader(options), ...options.headers }, signal });
      return firstResult(res);
    });
  },
});

/** A graphql-ws client over the `ws` package (Node 20 has no WebSocket of its own), the key in connectionParams. */
export function wsClient(app: RunningApp, key: string | null = TEST_KEY, extra: Partial<Parameters<typeof createClient>[0]> = {}): Client {
  return createClient({
    url: `${app.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: key === null ? {} : { 'x-api-key': key },
    retryAttempts: 0,
    lazy: true,
    ...extra,
  });
}

const webSocket: Transport = {
  name: 'WebSocket (graphql-transport-ws)',
  get: false,
  params: true,
  send(app, request, options = {}) {
    return new Promise<GqlAnswer>((resolve, reject) => {
      let closed: number | undefined;
      let settled = false;
      const client = wsClient(app, options.key === undefined ? TEST_KEY : options.key, {
        on: { closed: (event) => void (closed = (event as { code: number }).code) },
      });
      const settle = (answer: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        void client.dispose();
        answer();
      };
      const timer = setTimeout(() => settle(() => reject(new Error(`${webSocket.name}: no answer within ${ANSWER_MS} ms`))), ANSWER_MS);
      // graphql-ws requires a query text; a document named by hash or id sends an empty one.
      const payload = {
        query: request.query ?? '',
        variables: request.variables,
        operationName: request.operationName,
        extensions: request.extensions,
        ...(request.documentId ? { documentId: request.documentId } : {}),
      };
      const stop = client.subscribe(payload as never, {
        next: (result) => {
          stop();
          settle(() => resolve({ status: null, body: result as GqlAnswer['body'] }));
        },
        error: (err) =>
          settle(() => {
            if (Array.isArray(err)) resolve({ status: null, body: { errors: err } });
            else if (closed !== undefined || (err as { code?: number }).code !== undefined)
              resolve({ status: null, body: {}, closed: closed ?? (err as { code: number }).code });
            else reject(err);
          }),
        // Completed with no result first (after a result it is a no-op): the answer is missing, not late.
        complete: () =>
          settle(() =>
            closed !== undefined
              ? resolve({ status: null, body: {}, closed })
              : reject(new Error(`${webSocket.name}: the server completed the operation without a result`)),
          ),
      });
    });
  },
};

const batch: Transport = {
  name: 'batch (JSON array)',
  get: false,
  params: true,
  send(app, request, options = {}) {
    return bounded(batch.name, async (signal) => {
      const res = await fetch(`${app.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...keyHeader(options), ...options.headers },
        body: JSON.stringify([request, { query: '{ __typename }' }]),
        signal,
      });
      const body = JSON.parse(await res.text());
      // An operation of a batch has no status of its own: the batch is 200 unless it was refused whole.
      return Array.isArray(body) ? { status: null, body: body[0] } : { status: res.status, body };
    });
  },
};

const JSON_ACCEPT = 'application/graphql-response+json, application/json';

/** Every way a GraphQL request reaches /graphql. A new transport is one more row here. */
export const TRANSPORTS: readonly Transport[] = [
  post('application/json', JSON_ACCEPT, (r) => JSON.stringify(r), 'POST application/json'),
  get(JSON_ACCEPT, 'GET'),
  post('application/graphql+json', JSON_ACCEPT, (r) => JSON.stringify(r), 'POST application/graphql+json'),
  post('application/graphql', JSON_ACCEPT, (r) => r.query ?? '', 'POST application/graphql'),
  post('application/json', 'text/event-stream', (r) => JSON.stringify(r), 'POST, SSE'),
  get('text/event-stream', 'GET, SSE'),
  post('application/json', 'multipart/mixed', (r) => JSON.stringify(r), 'POST, multipart'),
  get('multipart/mixed', 'GET, multipart'),
  webSocket,
  batch,
];
