import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import type { RunningApp } from '../src/app/start.js';
import type { Config } from '../src/lib/config.js';
import { clockAt, getJson, startTestServer, TEST_KEY } from './helpers/server.js';
import { startFakeUpstream, type FakeUpstream } from './helpers/fake-upstream.js';
import { until } from './helpers/wait.js';

/**
 * @defer and @stream over multipart/mixed (the incremental delivery format Apollo Client and urql
 * read): the first part comes while a deferred field's provider has not answered yet.
 */
const DAY = '2027-01-15';
let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream({ today: DAY });
});
afterAll(() => fake.close());

const meteo = (upstream: Partial<Config['upstream']> = {}): Partial<Config> => ({
  provider: 'open-meteo',
  openMeteo: { forecast: `${fake.url}/v1/forecast`, archive: `${fake.url}/v1/archive` },
  upstream: { timeoutMs: 60_000, retries: 0, concurrency: 4, backoffMs: 5, resetTimeoutMs: 60_000, maxBytes: 8_000_000, ...upstream },
});

const DEFERRED_HISTORY = '{ resort(id: "alta") { name ... @defer(label: "history") { history(days: 8, years: 2, radiusKm: 3) { current { snowfall } } } } }';

/** The parts of a multipart/mixed answer, read one at a time as they arrive. */
function partsOf(res: Response): () => Promise<any | null> {
  const boundary = /boundary="?([^";]+)"?/.exec(res.headers.get('content-type') ?? '')?.[1];
  if (!boundary) throw new Error(`not multipart: ${res.headers.get('content-type')}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  const delimiter = `--${boundary}`;
  return async () => {
    for (;;) {
      // A part is complete when the next delimiter follows it.
      const start = buffered.indexOf(delimiter);
      const end = start === -1 ? -1 : buffered.indexOf(delimiter, start + delimiter.length);
      if (end !== -1) {
        const part = buffered.slice(start + delimiter.length, end);
        buffered = buffered.slice(end);
        const body = part.slice(part.indexOf('\r\n\r\n') + 4).trim();
        if (body) return JSON.parse(body);
        continue;
      }
      const { done, value } = await reader.read();
      if (done) return null;
      buffered += decoder.decode(value, { stream: true });
    }
  };
}

const multipart = (app: RunningApp, query: string) =>
  fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'multipart/mixed', 'x-api-key': TEST_KEY },
    body: JSON.stringify({ query }),
  });

describe('incremental delivery', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startTestServer({ privateDb: true, now: clockAt(`${DAY}T09:00:00Z`), config: meteo() });
  });
  afterAll(() => app.close());

  it('a deferred fragment comes after the rest: the resort while its history is still being fetched, then the history', async () => {
    const release = fake.hold();
    let released = false;
    try {
      const res = await multipart(app, DEFERRED_HISTORY);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^multipart\/mixed/);
      const next = partsOf(res);
      const first = await next();
      // The provider has not answered: the first part cannot wait for it. It carries the answer's
      // cost (deferred fields included) and its request id, as a single answer does.
      expect(first).toEqual({
        data: { resort: { name: 'Alta' } },
        hasNext: true,
        extensions: { cost: { requestedQueryCost: expect.any(Number), throttleStatus: expect.any(Object) }, requestId: res.headers.get('x-request-id') },
      });
      expect(first.extensions.cost.requestedQueryCost).toBeGreaterThan(8 * 3 * 7);
      release();
      released = true;
      const rest: any[] = [];
      for (let part = await next(); part; part = await next()) rest.push(part);
      const pieces = rest.flatMap((p) => p.incremental ?? []);
      expect(pieces).toEqual([{ data: { history: { current: { snowfall: expect.any(Number) } } }, path: ['resort'], label: 'history' }]);
      expect(rest.at(-1).hasNext).toBe(false);
    } finally {
      if (!released) release();
    }
  });

  it("Apollo Client's @defer support reads it: first the resort, then the resort with its history", async () => {
    const client = new ApolloClient({
      link: new HttpLink({ uri: `${app.url}/graphql`, headers: { 'x-api-key': TEST_KEY } }),
      cache: new InMemoryCache(),
      incrementalHandler: new Defer20220824Handler(),
    });
    const release = fake.hold();
    const seen: unknown[] = [];
    try {
      const done = new Promise<void>((resolve, reject) => {
        const sub = client.watchQuery({ query: gql(DEFERRED_HISTORY), fetchPolicy: 'network-only' }).subscribe({
          next: (r) => {
            if (!r.data) return;
            seen.push(r.data);
            // The first answer came while the provider was held: let it answer now.
            if (seen.length === 1) release();
            if ((r.data as { resort: { history?: unknown } }).resort.history) {
              sub.unsubscribe();
              resolve();
            }
          },
          error: reject,
        });
      });
      await done;
    } finally {
      release();
    }
    expect(seen[0]).toEqual({ resort: { __typename: 'Resort', name: 'Alta' } });
    expect(seen.at(-1)).toEqual({
      resort: {
        __typename: 'Resort',
        name: 'Alta',
        history: { __typename: 'History', current: { __typename: 'HistoryValues', snowfall: expect.any(Number) } },
      },
    });
  });

  it('a client that does not read multipart/mixed gets the whole answer at once, deferred parts included', async () => {
    const r = await getJson(app, '/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: DEFERRED_HISTORY }),
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ resort: { name: 'Alta', history: { current: { snowfall: expect.any(Number) } } } });
  });

  it('@stream delivers the first items of a list with the answer and the rest after', async () => {
    const res = await multipart(app, '{ resorts(paging: { limit: 4 }) { resorts @stream(initialCount: 1) { id } } }');
    const next = partsOf(res);
    const first = await next();
    expect(first.data.resorts.resorts).toHaveLength(1);
    const items: unknown[] = [];
    for (let part = await next(); part; part = await next()) for (const piece of part.incremental ?? []) items.push(...(piece.items ?? []));
    expect(items).toHaveLength(3);
  });

  it('cost analysis covers deferred parts: an expensive deferred fragment is refused before anything is sent', async () => {
    const res = await multipart(
      app,
      '{ states { zipcodes(limit: 1000) { ... @defer { nearby(limit: 200) { details { state { zipcodes(limit: 1000) { zip } } } } } } } }',
    );
    const text = await res.text();
    expect(text).toMatch(/QUERY_TOO_COMPLEX/);
    expect(text).not.toMatch(/"zipcodes":\[/);
  });
});

describe('the deadline covers deferred parts', () => {
  it("a deferred part waiting on a provider that never answers ends inside the request's deadline, and the provider call is closed", async () => {
    const app = await startTestServer({ privateDb: true, now: clockAt(`${DAY}T09:00:00Z`), config: { ...meteo(), executionTimeoutMs: 1000 } });
    fake.mode = 'hang';
    try {
      const res = await multipart(app, DEFERRED_HISTORY);
      const next = partsOf(res);
      expect(await next()).toMatchObject({ data: { resort: { name: 'Alta' } }, hasNext: true });
      // The provider never answers and its own time-out is a minute away: only the deadline ends this.
      const last = await next();
      expect(last.hasNext).toBe(false);
      expect(last.incremental[0].errors[0].extensions.code).toBe('UPSTREAM_FAILED');
      expect(await next()).toBeNull();
      // The hanging call was given up (the fake sees its connection close).
      await until(
        async () => fake.inFlight(),
        (n) => n === 0,
      );
    } finally {
      fake.mode = 'ok';
      await app.close();
    }
  });
});
