import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { Deadlines } from '../src/http/deadline.js';
import { QUERY_LIMITS } from '../src/operation/steps/limits.js';
import { COST_LIMITS } from '../src/operation/steps/cost.js';
import { expectProblem, getJson, startTestServer, TEST_KEY } from './helpers/server.js';

let app: RunningApp;
beforeAll(async () => {
  app = await startTestServer({ countStatements: true, config: { corsOrigins: ['https://app.example'] } });
});
afterAll(() => app.close());

const post = (query: string, extra: Record<string, string> = {}) =>
  getJson(app, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...extra }, body: JSON.stringify({ query }) });

describe('HTTP hardening', () => {
  it('sets security headers on every response, errors included', async () => {
    for (const r of [await getJson(app, '/api/stats'), await getJson(app, '/api/zip/1'), await getJson(app, '/api/stats', { apiKey: null })]) {
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      // None was sent: the server makes one (a UUID).
      expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // Answers may be kept by the key holder's client and revalidated by ETag; errors never.
      expect(r.headers.get('cache-control')).toMatch(r.status === 200 ? /^private, max-age=\d+, stale-while-revalidate=\d+$/ : /^no-store$/);
      expect(r.headers.get('etag') !== null).toBe(r.status === 200);
    }
  });

  it('answers CORS preflights for allowed origins only', async () => {
    const ok = await fetch(`${app.url}/api/stats`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-headers': 'x-api-key' },
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(ok.headers.get('access-control-allow-headers')).toContain('x-api-key');
    const other = await fetch(`${app.url}/api/stats`, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const simple = await getJson(app, '/api/stats', { headers: { origin: 'https://app.example' } });
    expect(simple.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(simple.headers.get('access-control-expose-headers')).toContain('ratelimit-remaining');
  });

  it('answers unparseable and oversized requests with problem+json, not a bare status line', async () => {
    const raw = (text: string) =>
      new Promise<string>((resolve) => {
        const socket = net.connect(app.port, '127.0.0.1', () => socket.end(text));
        let out = '';
        socket.on('data', (d) => (out += d));
        socket.on('close', () => resolve(out));
      });
    const problemIn = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    // A URL over the limit is 414; headers over it (the request line short) 431.
    const longUrl = await raw(`GET /api/zip/90210?x=${'a'.repeat(30_000)} HTTP/1.1\r\nhost: x\r\n\r\n`);
    expect(longUrl).toMatch(/^HTTP\/1.1 414 /);
    expect(longUrl).toMatch(/content-type: application\/problem\+json/);
    expect(problemIn(longUrl)).toMatchObject({ status: 414, code: 'URI_TOO_LONG' });
    const bigHeader = await raw(`GET /api/zip/90210 HTTP/1.1\r\nhost: x\r\nx-big: ${'b'.repeat(30_000)}\r\n\r\n`);
    expect(bigHeader).toMatch(/^HTTP\/1.1 431 /);
    expect(problemIn(bigHeader)).toMatchObject({ status: 431, code: 'HEADERS_TOO_LARGE' });
    const manyHeaders = await raw(
      `GET /api/zip/90210 HTTP/1.1\r\nhost: x\r\n${Array.from({ length: 60 }, (_, i) => `x-h${i}: ${'c'.repeat(400)}\r\n`).join('')}\r\n`,
    );
    expect(problemIn(manyHeaders)).toMatchObject({ status: 431, code: 'HEADERS_TOO_LARGE' });
    // The second request on a connection, sent once the first is answered.
    const second = await new Promise<string>((resolve) => {
      const socket = net.connect(app.port, '127.0.0.1', () => socket.write('GET /livez HTTP/1.1\r\nhost: x\r\n\r\n'));
      let out = '';
      socket.on('data', (d) => {
        if (!out) socket.end(`GET /api/zips?codes=${'1'.repeat(30_000)} HTTP/1.1\r\nhost: x\r\n\r\n`);
        out += d;
      });
      socket.on('close', () => resolve(out));
    });
    expect(second).toMatch(/^HTTP\/1.1 200 /);
    expect(second).toMatch(/"live"\}HTTP\/1.1 414 /);
    const broken = await raw('THIS IS NOT HTTP\r\n\r\n');
    expect(broken).toMatch(/^HTTP\/1.1 400 /);
    expect(problemIn(broken)).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
  });

  it('a long URL is 414 and long headers 431 however the bytes arrive (in pieces the server reads as they come)', async () => {
    const inPieces = (text: string, size: number) =>
      new Promise<string>((resolve) => {
        const socket = net.connect(app.port, '127.0.0.1', () => {
          socket.setNoDelay(true);
          for (let i = 0; i < text.length; i += size) socket.write(text.slice(i, i + size));
          socket.end();
        });
        let out = '';
        socket.on('data', (d) => (out += d));
        socket.on('error', () => {});
        socket.on('close', () => resolve(out));
      });
    for (const size of [1000, 5000, 7000]) {
      expect(await inPieces(`GET /api/zips?codes=${'9'.repeat(30_000)} HTTP/1.1\r\nhost: x\r\n\r\n`, size), `URL in pieces of ${size}`).toMatch(
        /^HTTP\/1.1 414 /,
      );
      expect(await inPieces(`GET /api/zips HTTP/1.1\r\nhost: x\r\ncookie: ${'a=b; '.repeat(6000)}\r\n\r\n`, size), `header in pieces of ${size}`).toMatch(
        /^HTTP\/1.1 431 /,
      );
    }
  });

  it('refuses request bodies over the limit with 413 problem+json', async () => {
    const big = JSON.stringify({ query: `{ __typename }`, padding: 'x'.repeat(200_000) });
    const r = await getJson(app, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(expectProblem(r, 413).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('errors carry a code and the request id, and no stack or SQL', async () => {
    const r = await getJson(app, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': 'req-42' }, body: '{ not json' });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([{ message: 'POST body sent invalid JSON.', extensions: { code: 'BAD_REQUEST' } }]);
    expect(r.headers.get('x-request-id')).toBe('req-42');
    const v = await post('{ nope }', { 'x-request-id': 'req-43' });
    expect(v.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(v.body.extensions.requestId).toBe('req-43');
    expect(JSON.stringify(v.body)).not.toMatch(/stack|\.ts:|SQLITE/);
  });
});

describe('GraphQL query limits', () => {
  // The limits docs/hardening.md documents, as literals: a change to them fails here until the docs change too.
  const DOCUMENTED = { depth: 12, aliases: 15, tokens: 2000, directives: 20 };

  it('the documented limits are the ones in force', () => {
    expect(QUERY_LIMITS).toEqual({
      maxDepth: DOCUMENTED.depth,
      maxAliases: DOCUMENTED.aliases,
      maxTokens: DOCUMENTED.tokens,
      maxDirectives: DOCUMENTED.directives,
    });
  });

  it(`depth ${DOCUMENTED.depth} is answered, ${DOCUMENTED.depth + 1} refused`, async () => {
    // zip, then two levels per round, then the leaf: depth 2 + 2 × rounds, and one more with the
    // last round's leaf one level down (state { code }). Cheap at any depth.
    const nested = (rounds: number, extra = false) => {
      let q = extra ? 'state { code }' : 'zip';
      for (let i = 0; i < rounds; i++) q = `state { zipcodes(limit: 1) { ${q} } }`;
      return `{ zip(zip: "90210") { ${q} } }`;
    };
    const atLimit = await post(nested(5));
    expect(atLimit.body.errors).toBeUndefined();
    // Five rounds down to California's first ZIP.
    let level = atLimit.body.data.zip;
    for (let i = 0; i < 5; i++) level = level.state.zipcodes[0];
    expect(level).toEqual({ zip: '90001' });
    const r = await post(nested(5, true));
    expect(r.body.errors[0].message).toMatch(new RegExp(`depth limit of ${DOCUMENTED.depth} exceeded`, 'i'));
    expect(r.body.data ?? null).toBeNull();
  });

  it(`${DOCUMENTED.aliases} aliases are answered, ${DOCUMENTED.aliases + 1} refused`, async () => {
    const aliased = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: zipStats { totalZips }`).join(' ')} }`;
    const atLimit = await post(aliased(DOCUMENTED.aliases));
    expect(atLimit.body.errors).toBeUndefined();
    expect(atLimit.body.data.a14.totalZips).toBeGreaterThan(40_000);
    const r = await post(aliased(DOCUMENTED.aliases + 1));
    expect(r.body.errors[0].message).toMatch(/alias/i);
    expect(r.body.data ?? null).toBeNull();
  });

  it(`a document of ${DOCUMENTED.tokens} tokens is parsed, one of ${DOCUMENTED.tokens + 1} refused`, async () => {
    // Dense in tokens, light in fields (under the 400-field breadth) and in repeats (under 5,000
    // pairs): 15 aliased lookups of 100 codes each (12 + 100 tokens apiece), zipStats 63 times
    // (5 tokens each: 63² + 63 × 2 pairs), then __typename to make up the count. Commas and the
    // document's end are not tokens.
    const codes = Array.from({ length: 100 }, () => '"90210"').join(' ');
    const lists = Array.from({ length: 15 }, (_, i) => `a${i}: zips(codes: [${codes}]) { zip }`).join(' ');
    const ofTokens = (tokens: number) =>
      `{ ${lists} ${'zipStats { totalZips totalStates } '.repeat(63)}${'__typename '.repeat(tokens - 2 - 15 * 112 - 63 * 5)}}`;
    const atLimit = await post(ofTokens(DOCUMENTED.tokens));
    expect(atLimit.body.errors).toBeUndefined();
    expect(atLimit.body.data.zipStats.totalZips).toBeGreaterThan(40_000);
    const r = await post(ofTokens(DOCUMENTED.tokens + 1));
    expect(r.body.errors[0].message).toMatch(/token/i);
    expect(r.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  it('one field repeated up to the token bound is refused before GraphQL compares it, with @defer or @stream as without', async () => {
    // GraphQL's check that same-named fields merge works in pairs: a third of a second for one such
    // document; the defer plugin's copy of it, unmetered, spent seconds of the one thread.
    const repeated = (n: number) => '__typename '.repeat(n);
    const documents = [
      `{ ${repeated(DOCUMENTED.tokens - 2)}}`,
      `{ ... @defer { ${repeated(DOCUMENTED.tokens - 7)}} }`,
      `{ states @stream { ${repeated(DOCUMENTED.tokens - 7)}} }`,
    ];
    for (const query of documents) {
      const r = await post(query);
      expect(r.body.errors).toEqual([
        expect.objectContaining({ message: expect.stringMatching(/^Too many repeated fields to check/), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
      ]);
    }
  });

  it('rejects queries whose nested lists multiply past the complexity limit, before resolving anything', async () => {
    const before = app.statementCount();
    const r = await post(
      `{ states { zipcodes(limit: 1000) { nearby(limit: 200) { details { state { zipcodes(limit: 1000) { zip city county state { zipCount } } } } } } } }`,
    );
    expect(r.body.errors[0].message).toMatch(/complexity \d+ is over the limit of 250000/);
    expect(r.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(r.body.data ?? null).toBeNull();
    // Only the key check ran: no resolver touched the database.
    expect(app.statementCount() - before).toBeLessThanOrEqual(2);
  });

  it(`rejects more than ${COST_LIMITS.breadth} fields in one operation (breadth), at its exact bound`, async () => {
    // 15 aliased lookups and the rest of the fields shared out among them, each a ZIP's scalar
    // fields in turn (few repeats: under the bound on repeated fields): breadth 15 + the rest.
    const SCALARS = ['id', 'zip', 'city', 'stateCode', 'stateName', 'county', 'countyFips', 'lat', 'lng', 'timezone', 'lastUpdated'];
    const wide = (breadth: number) => {
      const rest = breadth - 15;
      const lookups = Array.from({ length: 15 }, (_, i) => {
        const fields = Array.from({ length: Math.floor(rest / 15) + (i < rest % 15 ? 1 : 0) }, (_, j) => SCALARS[j % SCALARS.length]);
        return `a${i}: zip(zip: "90210") { ${fields.join(' ')} }`;
      });
      return `{ ${lookups.join(' ')} }`;
    };
    const atLimit = await post(wide(COST_LIMITS.breadth));
    expect(atLimit.body.errors).toBeUndefined();
    expect(atLimit.body.data.a14.zip).toBe('90210');
    const over = await post(wide(COST_LIMITS.breadth + 1));
    expect(over.body.errors[0]).toMatchObject({
      message: `Query breadth ${COST_LIMITS.breadth + 1} is over the limit of ${COST_LIMITS.breadth}; ask for smaller pages or fewer nested lists.`,
      extensions: { code: 'QUERY_TOO_COMPLEX' },
    });
    expect(over.body.data ?? null).toBeNull();
  });

  it(`${DOCUMENTED.directives} directives are answered, ${DOCUMENTED.directives + 1} refused`, async () => {
    // One directive per selection (a directive is not repeatable on one field).
    const directed = (n: number) => `{ zipStats { ${Array.from({ length: n }, () => 'totalZips @include(if: true)').join(' ')} } }`;
    const atLimit = await post(directed(DOCUMENTED.directives));
    expect(atLimit.body.errors).toBeUndefined();
    expect(atLimit.body.data.zipStats.totalZips).toBeGreaterThan(40_000);
    const r = await post(directed(DOCUMENTED.directives + 1));
    expect(r.body.errors[0].message).toMatch(/directive/i);
    expect(r.body.data ?? null).toBeNull();
  });

  it('allows what the limits are for: a real, wide query', async () => {
    const r = await post('{ states { zipcodes(limit: 5) { zip state { stateName } nearby(radiusMiles: 200, limit: 3) { zip details { countyFips } } } } }');
    expect(r.status).toBe(200);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.states).toHaveLength(51);
    for (const state of r.body.data.states) {
      expect(state.zipcodes).toHaveLength(5);
      for (const z of state.zipcodes) expect(z.nearby).toHaveLength(3);
    }
  });
});

describe('production switches', () => {
  it('introspection and field suggestions can be turned off', async () => {
    const prod = await startTestServer({ config: { introspection: false } });
    try {
      const send = (query: string) =>
        getJson(prod, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
      const intro = await send('{ __schema { types { name } } }');
      expect(intro.body.errors[0].message).toMatch(/introspection/i);
      const typo = await send('{ zipStat { totalZips } }');
      expect(typo.body.errors[0].message).not.toMatch(/Did you mean/);
      const dev = await post('{ zipStat { totalZips } }');
      expect(dev.body.errors[0].message).toMatch(/Did you mean/);
    } finally {
      await prod.close();
    }
  });

  it('refuses simple cross-site GraphQL requests (CSRF) even with auth off', async () => {
    const open = await startTestServer({ config: { auth: false } });
    try {
      const r = await fetch(`${open.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: { accept: 'application/json' } });
      expect(r.status).toBe(403);
      const withHeader = await fetch(`${open.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
        headers: { accept: 'application/json', 'x-api-key': TEST_KEY },
      });
      expect(withHeader.status).toBe(200);
      // Without a key (AUTH=off), Yoga's own header is the other way to say "not a simple request".
      const withCsrfHeader = await fetch(`${open.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
        headers: { accept: 'application/json', 'x-graphql-yoga-csrf': '1' },
      });
      expect(withCsrfHeader.status).toBe(200);
      expect(await withCsrfHeader.json()).toMatchObject({ data: { __typename: 'Query' } });
    } finally {
      await open.close();
    }
  });

  it('a GET carrying only an Authorization header passes CSRF, with a key or with AUTH=off; the refusal names the headers that would pass', async () => {
    const keyed = await startTestServer({ config: { apiKeys: [TEST_KEY] } });
    const open = await startTestServer({ config: { auth: false } });
    try {
      const url = (app: RunningApp) => `${app.url}/graphql?query=${encodeURIComponent('{ __typename }')}`;
      // Nothing but the bearer token: what a browser cannot add to a cross-site <img> or form.
      const bearer = await fetch(url(keyed), { headers: { authorization: `Bearer ${TEST_KEY}` } });
      expect(bearer.status).toBe(200);
      expect(await bearer.json()).toMatchObject({ data: { __typename: 'Query' } });
      const openBearer = await fetch(url(open), { headers: { authorization: 'Bearer anything' } });
      expect(openBearer.status).toBe(200);
      const bare = await fetch(url(open));
      expect(bare.status).toBe(403);
      const refusal = (await bare.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect(refusal.errors[0]!.extensions.code).toBe('FORBIDDEN');
      expect(refusal.errors[0]!.message).toMatch(/x-api-key, authorization or x-graphql-yoga-csrf/);
    } finally {
      await keyed.close();
      await open.close();
    }
  });
});

describe('deadlines', () => {
  const request = (name: string, expired: string[]) => ({ due: 0, slot: -1, timeOut: () => void expired.push(name) });

  it('each request is expired once, when the (injected) clock passes its due time; one that answered is not', () => {
    let t = 0;
    const deadlines = new Deadlines(40, () => t);
    const expired: string[] = [];
    const [a, b, c] = [request('a', expired), request('b', expired), request('c', expired)];
    deadlines.track(a);
    t = 30;
    deadlines.track(b);
    deadlines.track(c);
    deadlines.done(c);
    deadlines.done(c);
    expect(deadlines.size).toBe(2);
    t = 39;
    deadlines.sweep();
    expect(expired).toEqual([]);
    t = 40;
    deadlines.sweep();
    expect(expired).toEqual(['a']);
    t = 70;
    deadlines.sweep();
    deadlines.sweep();
    // A sweep long after c's due time (shown by d expiring in it) leaves c alone: it answered.
    const d = request('d', expired);
    deadlines.track(d);
    deadlines.track(d);
    expect(deadlines.size).toBe(1);
    t = 1000;
    deadlines.sweep();
    deadlines.close();
    expect(expired).toEqual(['a', 'b', 'd']);
    expect(deadlines.size).toBe(0);
  });

  it('whatever the order requests come, answer and expire in, each one is expired exactly when a set of them says', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('track', 'done', 'tick', 'sweep'), fc.nat(3)), { minLength: 10, maxLength: 60, size: 'max' }), (steps) => {
        let t = 0;
        const deadlines = new Deadlines(5, () => t);
        const expired: string[] = [];
        const wanted: string[] = [];
        const requests = Array.from({ length: 4 }, (_, i) => request(String(i), expired));
        const model = new Map<number, number>();
        for (const [step, i] of steps) {
          if (step === 'track') {
            deadlines.track(requests[i]!);
            model.set(i, t + 5);
          } else if (step === 'done') {
            deadlines.done(requests[i]!);
            model.delete(i);
          } else if (step === 'tick') t += i;
          else {
            deadlines.sweep();
            for (const [j, due] of model) {
              if (due > t) continue;
              model.delete(j);
              wanted.push(String(j));
            }
          }
          expect(deadlines.size).toBe(model.size);
        }
        deadlines.close();
        expect([...expired].sort()).toEqual([...wanted].sort());
      }),
    );
  });
});

describe('pages served without a key', () => {
  it('at most 60 loads a minute of the server’s clock from one address: the 61st is 429 until the minute ends', async () => {
    let t = Date.parse('2027-01-15T12:00:30Z');
    const pages = await startTestServer({ now: () => new Date(t) });
    try {
      for (let i = 0; i < 60; i++) expect((await getJson(pages, '/openapi.json', { apiKey: null })).status).toBe(200);
      const over = expectProblem(await getJson(pages, '/schema.graphql', { apiKey: null }), 429);
      expect(over.code).toBe('RATE_LIMITED');
      expect(over.detail).toBe('At most 60 page loads a minute from one address without a key.');
      // Half the minute is left.
      const again = await getJson(pages, '/', { apiKey: null });
      expect(again.headers.get('retry-after')).toBe('30');
      t += 30_000;
      expect((await getJson(pages, '/openapi.json', { apiKey: null })).status).toBe(200);
    } finally {
      await pages.close();
    }
  });
});
