import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApolloClient, InMemoryCache, gql } from '@apollo/client';
import { BatchHttpLink } from '@apollo/client/link/batch-http';
import type { RunningApp } from '../src/app/start.js';
import { expectProblem, getJson, startTestServer, TEST_KEY } from './helpers/server.js';

/**
 * Batched operations: an array of GraphQL requests in one POST (Apollo's BatchHttpLink), answered
 * as an array in the same order, each operation checked, costed and counted like a request of its
 * own, at most GRAPHQL_BATCH_MAX (10) of them.
 */

const batch = (app: RunningApp, operations: unknown[], key = TEST_KEY) =>
  getJson(app, '/graphql', { method: 'POST', apiKey: key, headers: { 'content-type': 'application/json' }, body: JSON.stringify(operations) });

describe('batched operations', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startTestServer();
  });
  afterAll(() => app.close());

  it("Apollo Client's BatchHttpLink: two queries in one request, each answered", async () => {
    const posted: unknown[] = [];
    const recording: typeof fetch = async (input, init) => {
      posted.push(JSON.parse(String(init?.body)));
      return fetch(input, init);
    };
    const client = new ApolloClient({
      link: new BatchHttpLink({ uri: `${app.url}/graphql`, headers: { 'x-api-key': TEST_KEY }, fetch: recording, batchInterval: 20 }),
      cache: new InMemoryCache(),
    });
    const [a, b] = await Promise.all([
      client.query({ query: gql`query A { zip(zip: "05401") { city } }` }),
      client.query({ query: gql`query B { zip(zip: "81657") { city } }` }),
    ]);
    expect(a.data).toEqual({ zip: { __typename: 'Zip', city: 'Burlington' } });
    expect(b.data).toEqual({ zip: { __typename: 'Zip', city: 'Vail' } });
    expect(posted).toHaveLength(1);
    expect(posted[0]).toHaveLength(2);
  });

  it('answers in the order asked; each operation has its own errors and its own cost', async () => {
    const r = await batch(app, [
      { query: '{ zip(zip: "90210") { city } }' },
      { query: '{ nope }' },
      { query: 'query($z: String!) { zip(zip: $z) { city } }', variables: { z: '05401' } },
    ]);
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(3);
    expect(r.body[0].data).toEqual({ zip: { city: 'Beverly Hills' } });
    expect(r.body[1].errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(r.body[2].data).toEqual({ zip: { city: 'Burlington' } });
    for (const i of [0, 2]) expect(r.body[i].extensions.cost.requestedQueryCost).toBeGreaterThan(0);
  });

  it('at most 10 operations: 11 is a 400 naming the bound; an empty batch too', async () => {
    const ten = await batch(
      app,
      Array.from({ length: 10 }, () => ({ query: '{ __typename }' })),
    );
    expect(ten.status).toBe(200);
    expect(ten.body).toHaveLength(10);
    const eleven = expectProblem(
      await batch(
        app,
        Array.from({ length: 11 }, () => ({ query: '{ __typename }' })),
      ),
      400,
    );
    expect(eleven.errors![0]).toMatchObject({ name: 'batch', value: 11, bound: '1 to 10 operations' });
    expect(expectProblem(await batch(app, []), 400).errors![0]).toMatchObject({ name: 'batch', value: 0 });
  });

  it('an item that is not an operation is refused alone', async () => {
    const r = await batch(app, [{ query: '{ __typename }' }, 'not an operation']);
    expect(r.body[0].data).toEqual({ __typename: 'Query' });
    expect(r.body[1].errors[0].extensions.code).toBe('BAD_REQUEST');
  });
});

describe('a batch is counted as its operations', () => {
  it('against the key’s per-second rate: operations past it are refused (RATE_LIMITED), the others answered', async () => {
    const key = 'szg_batch_rate_limited_key_0123456';
    const app = await startTestServer({ now: () => new Date('2027-01-15T12:00:00.500Z'), config: { apiKeys: [TEST_KEY, key], apiKeysRate: 3 } });
    try {
      const r = await batch(
        app,
        Array.from({ length: 5 }, () => ({ query: '{ __typename }' })),
        key,
      );
      expect(r.status).toBe(200);
      expect(r.body.map((item: { data?: unknown; errors?: { extensions: { code: string } }[] }) => item.data ?? item.errors![0]!.extensions.code)).toEqual([
        { __typename: 'Query' },
        { __typename: 'Query' },
        { __typename: 'Query' },
        'RATE_LIMITED',
        'RATE_LIMITED',
      ]);
      // After the last operation the key has no request left this second.
      expect([r.headers.get('ratelimit-limit'), r.headers.get('ratelimit-remaining')]).toEqual(['3', '0']);
    } finally {
      await app.close();
    }
  });

  it("its RateLimit headers describe the key after the batch's last operation, not its first", async () => {
    const key = 'szg_batch_quota_key_0123456789abcd';
    const app = await startTestServer({ config: { apiKeys: [TEST_KEY, key], apiKeysQuota: 1000 } });
    try {
      const remaining = (r: { headers: Headers }) => Number(r.headers.get('ratelimit-remaining'));
      const before = remaining(await getJson(app, '/api/stats', { apiKey: key }));
      const r = await batch(
        app,
        Array.from({ length: 4 }, () => ({ query: '{ __typename }' })),
        key,
      );
      expect(r.status).toBe(200);
      // Four operations, each counted as a request of its own.
      expect(remaining(r)).toBe(before - 4);
      expect(r.headers.get('ratelimit-limit')).toBe('1000');
      expect(remaining(await getJson(app, '/api/stats', { apiKey: key }))).toBe(before - 5);
    } finally {
      await app.close();
    }
  });

  it('with GRAPHQL_BATCH_MAX lowered, its bound is the one named', async () => {
    const app = await startTestServer({
      config: { graphql: { maxBatch: 2, wsInitTimeoutMs: 3000, wsIdleTimeoutMs: 60_000, heartbeatMs: 12_000, liveCheckMs: 1000 } },
    });
    try {
      const r = expectProblem(
        await batch(
          app,
          Array.from({ length: 3 }, () => ({ query: '{ __typename }' })),
        ),
        400,
      );
      expect(r.errors![0]).toMatchObject({ bound: '1 to 2 operations' });
    } finally {
      await app.close();
    }
  });
});
