import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/http/json-guard.js';
import { PERCENT_ENCODING } from '../../src/http/query-string.js';
import { TEST_KEY } from '../helpers/server.js';
import { negotiate } from '../../src/transports/graphql/event-stream.js';
import { liveSubscribers, noErrorLogged, sharedSourceApp, subscribersBecome, type SourceApp } from './app-world.js';
import { streamReader } from './stream-reader.js';

/**
 * /graphql over HTTP (transports/graphql/http.ts, answer.ts, event-stream.ts) on the server built
 * from src/: what a request decodes to, the status and media type of each answer, batches, and
 * the streams (SSE, multipart) a client reads.
 */

const ZIP_STATS = '{ zipStats { totalZips } }';
const TOTAL_ZIPS = { zipStats: { totalZips: 40977 } };
const GRAPHQL_RESPONSE = 'application/graphql-response+json; charset=utf-8';
const JSON_UTF8 = 'application/json; charset=utf-8';

const app = sharedSourceApp('gateway-graphql-http-', { env: { GRAPHQL_BATCH_MAX: '3', STREAMS_PER_KEY: '2' }, logLevel: 'info' });
noErrorLogged(app);

/** The cost the request log line of the request with this id names. */
const loggedCost = (requestId: string | null) =>
  app()
    .log()
    .find((l) => l.msg === 'request' && l.reqId === requestId)?.cost;

/** A request to /graphql with the suite's key (and the headers given). */
const send = (a: SourceApp, init: RequestInit & { search?: string } = {}) => {
  const headers = new Headers(init.headers);
  if (!headers.has('x-api-key') && !headers.has('authorization')) headers.set('x-api-key', TEST_KEY);
  return fetch(`${a.url}/graphql${init.search ?? ''}`, { ...init, headers });
};
const post = (body: string | Buffer, headers: Record<string, string> = {}) =>
  send(app(), {
    method: 'POST',
    body: typeof body === 'string' ? body : new Blob([new Uint8Array(body)]),
    headers: { 'content-type': 'application/json', ...headers },
  });
const get = (search: string, headers: Record<string, string> = {}) => send(app(), { search, headers });

/** Status, media type and JSON body of an answer. */
async function answer(r: Response | Promise<Response>) {
  const res = await r;
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), headers: res.headers, body: JSON.parse(text) };
}

/** A 400 request error as a GraphQL client reads it: the message, BAD_REQUEST, and the request id. */
const requestError = (message: string, requestId: string) => ({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }], extensions: { requestId } });

describe('POST /graphql', () => {
  it('a JSON body runs its query: 200 with the data, its cost and the request id, as plain JSON or as GraphQL’s own type when asked', async () => {
    const plain = await answer(post(JSON.stringify({ query: ZIP_STATS, ignored: 1 })));
    expect([plain.status, plain.type, plain.headers.get('cache-control')]).toEqual([200, JSON_UTF8, 'no-store']);
    expect(plain.body).toEqual({
      data: TOTAL_ZIPS,
      extensions: { cost: expect.objectContaining({ requestedQueryCost: 2 }), requestId: plain.headers.get('x-request-id') },
    });
    expect(loggedCost(plain.headers.get('x-request-id'))).toBe(2);
    const own = await answer(post(JSON.stringify({ query: ZIP_STATS }), { accept: 'application/graphql-response+json' }));
    expect([own.status, own.type, own.body.data]).toEqual([200, GRAPHQL_RESPONSE, TOTAL_ZIPS]);
    // Media types are case-insensitive.
    const spelt = await answer(post(JSON.stringify({ query: ZIP_STATS }), { accept: 'Application/GraphQL-Response+JSON' }));
    expect([spelt.status, spelt.type]).toEqual([200, GRAPHQL_RESPONSE]);
  });

  it('takes the operation’s name, variables and extensions from the body', async () => {
    const query = 'query A { zipStats { totalZips } } query B($zip: String!) { zip(zip: $zip) { city } }';
    const b = await answer(post(JSON.stringify({ query, operationName: 'B', variables: { zip: '90210' }, extensions: {} })));
    expect(b.body.data).toEqual({ zip: { city: 'Beverly Hills' } });
  });

  it('reads application/graphql+json, and application/graphql as the query’s own text, whatever the case and parameters of the type', async () => {
    const plus = await answer(post(JSON.stringify({ query: ZIP_STATS }), { 'content-type': 'application/graphql+json' }));
    expect(plus.body.data).toEqual(TOTAL_ZIPS);
    const text = await answer(post(ZIP_STATS, { 'content-type': ' Application/GraphQL ; charset=utf-8' }));
    expect([text.status, text.body.data]).toEqual([200, TOTAL_ZIPS]);
  });

  it('any other media type is 415, naming it and what is taken; none at all is named missing', async () => {
    const taken = 'application/json, application/graphql+json, application/graphql';
    const plain = await answer(post(ZIP_STATS, { 'content-type': 'text/plain; charset=utf-8' }));
    expect([plain.status, plain.headers.get('accept-post')]).toEqual([415, taken]);
    expect(plain.body).toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      detail: `POST /graphql takes ${taken}; the request's content-type is "text/plain".`,
      errors: [{ name: 'content-type', value: 'text/plain', bound: taken, message: `content-type must be one of ${taken}` }],
    });
    const none = await answer(send(app(), { method: 'POST', body: new Blob([ZIP_STATS]) }));
    expect([none.status, none.body.detail, none.body.errors[0].value]).toEqual([
      415,
      `POST /graphql takes ${taken}; the request's content-type is missing.`,
      null,
    ]);
  });

  it('a body that is not UTF-8, not JSON, or not an object is a request error: 400 with its message', async () => {
    const cases: [string | Buffer, string][] = [
      [Buffer.from([0x7b, 0xff, 0x7d]), 'POST body is not valid UTF-8.'],
      ['{"query": ', 'POST body sent invalid JSON.'],
      ['42', 'POST body must be a JSON object (one operation) or an array of them (a batch).'],
      ['null', 'POST body must be a JSON object (one operation) or an array of them (a batch).'],
    ];
    for (const [body, message] of cases) {
      const a = await answer(post(body, { accept: 'application/graphql-response+json' }));
      expect([a.status, a.type], message).toEqual([400, GRAPHQL_RESPONSE]);
      expect(a.body).toEqual(requestError(message, a.headers.get('x-request-id')!));
    }
    // Plain JSON clients get the same 400: a request that never became an operation has no 200 form.
    expect((await post('{', { accept: 'application/json' })).status).toBe(400);
  });

  it('JSON nested past the bound is refused before it is parsed (400 problem naming the body)', async () => {
    const deep = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    const a = await answer(post(deep));
    expect(a.status).toBe(400);
    const bound = `JSON nested at most ${MAX_JSON_DEPTH} levels deep`;
    expect(a.body).toMatchObject({
      code: 'BAD_REQUEST',
      detail: `The request's body nests deeper than ${MAX_JSON_DEPTH} levels.`,
      errors: [{ name: 'body', bound, message: `body must be ${bound}` }],
    });
  });

  it('a result without data is 400 (variables that do not coerce); with data, 200 even beside errors', async () => {
    const bad = await answer(post(JSON.stringify({ query: 'query($zip: String!) { zip(zip: $zip) { city } }', variables: { zip: 5 } })));
    expect([bad.status, bad.body.data, bad.body.errors.length]).toEqual([400, undefined, 1]);
    const partial = await answer(post(JSON.stringify({ query: '{ zipDistance(from: "90210", to: "99999") { distanceMiles } }' })));
    expect([partial.status, partial.body.data, partial.body.errors[0].extensions.code]).toEqual([200, { zipDistance: null }, 'NOT_FOUND']);
  });

  it('a refusal: 200 with the errors to a plain JSON client (or one that says nothing, or anything), its status to GraphQL’s own type or a stream reader', async () => {
    const body = JSON.stringify({ query: '{ nope }' });
    for (const accept of ['application/json', 'Application/JSON', '*/*', 'text/html, */*;q=0.1'])
      expect((await post(body, { accept })).status, accept).toBe(200);
    expect((await send(app(), { method: 'POST', body, headers: { 'content-type': 'application/json' } })).status).toBe(200);
    for (const accept of ['application/graphql-response+json', 'Application/GraphQL-Response+JSON', 'text/html'])
      expect((await post(body, { accept })).status, accept).toBe(400);
    const a = await answer(post(body));
    expect(a.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(a.body.extensions.requestId).toBe(a.headers.get('x-request-id'));
  });

  it('a subscription’s refusal at its start has its error’s status (an unknown resort: 404)', async () => {
    const a = await answer(
      post(JSON.stringify({ query: 'subscription { conditionsChanged(resortIds: ["nowhere"]) { resortId } }' }), {
        accept: 'text/event-stream, application/json;q=0.5',
      }),
    );
    expect(a.status).toBe(404);
    expect(a.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('GET /graphql', () => {
  const q = (params: Record<string, string>) => `?${new URLSearchParams(params)}`;

  it('runs the query of its parameters, with its variables, operation name and extensions', async () => {
    const query = 'query A { zipStats { totalZips } } query B($zip: String!) { zip(zip: $zip) { city } }';
    const a = await answer(get(q({ query, operationName: 'B', variables: '{"zip":"10001"}', extensions: '{}' })));
    expect([a.status, a.body.data]).toEqual([200, { zip: { city: 'New York' } }]);
    // An empty variables parameter is none.
    expect((await answer(get(q({ query: ZIP_STATS, variables: '' })))).body.data).toEqual(TOTAL_ZIPS);
  });

  it('is kept: an ETag per document and variables, 304 when the client has it', async () => {
    const query = 'query($zip: String!) { zip(zip: $zip) { city } }';
    const first = await get(q({ query, variables: '{"zip":"90210"}' }));
    const etag = first.headers.get('etag');
    expect([first.status, await first.json()]).toEqual([200, { data: { zip: { city: 'Beverly Hills' } }, extensions: { cost: { requestedQueryCost: 2 } } }]);
    expect(etag).toMatch(/^"/);
    const again = await get(q({ query, variables: '{"zip":"90210"}' }), { 'if-none-match': etag! });
    expect(again.status).toBe(304);
    const other = await get(q({ query, variables: '{"zip":"10001"}' }), { 'if-none-match': etag! });
    expect([other.status, ((await other.json()) as { data: unknown }).data]).toEqual([200, { zip: { city: 'New York' } }]);
  });

  it('a parameter not percent-encoded, not JSON, not an object, or too deep is refused, naming it', async () => {
    const rid = (a: { headers: Headers }) => a.headers.get('x-request-id')!;
    const bad = await answer(get(`?query=${encodeURIComponent(ZIP_STATS)}&variables=%E0%A4%A`));
    expect([bad.status, bad.body]).toEqual([400, requestError(`The variables parameter is not ${PERCENT_ENCODING}.`, rid(bad))]);
    for (const name of ['variables', 'extensions']) {
      const notJson = await answer(get(q({ query: ZIP_STATS, [name]: '{x' })));
      expect([notJson.status, notJson.body]).toEqual([400, requestError(`The ${name} parameter is not valid JSON.`, rid(notJson))]);
      for (const value of ['[1]', 'null', '7']) {
        const notObject = await answer(get(q({ query: ZIP_STATS, [name]: value })));
        expect(notObject.body, value).toEqual(requestError(`The ${name} parameter must be a JSON object.`, rid(notObject)));
      }
      const deep = await answer(get(q({ query: ZIP_STATS, [name]: `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}` })));
      expect([deep.status, deep.body.detail]).toEqual([400, `The request's ${name} nests deeper than ${MAX_JSON_DEPTH} levels.`]);
    }
  });

  it('a mutation over GET is 405', async () => {
    const a = await answer(get(q({ query: 'mutation { runSync { state } }' })));
    expect([a.status, a.body.errors[0].extensions.code]).toEqual([405, 'METHOD_NOT_ALLOWED']);
  });

  it('by a persisted document’s id', async () => {
    const a = await answer(get(q({ documentId: 'sha256:0000' })));
    expect(a.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });
});

describe('other methods', () => {
  it('are 405, allowing GET and POST', async () => {
    const a = await answer(send(app(), { method: 'PUT', body: '{}' }));
    expect([a.status, a.headers.get('allow'), a.body.code, a.body.detail]).toEqual([
      405,
      'GET, POST',
      'METHOD_NOT_ALLOWED',
      'PUT is not allowed on /graphql; use GET or POST.',
    ]);
  });
});

describe('a batch', () => {
  it('answers each operation in order, each as if sent alone; an item that is not an object is its own error', async () => {
    const a = await answer(post(JSON.stringify([{ query: ZIP_STATS }, 5, { query: '{ nope }' }]), { accept: 'application/graphql-response+json' }));
    expect([a.status, a.type, a.headers.get('cache-control')]).toEqual([200, GRAPHQL_RESPONSE, 'no-store']);
    expect(a.body[0]).toEqual({ data: TOTAL_ZIPS, extensions: { cost: expect.objectContaining({ requestedQueryCost: 2 }), requestId: expect.any(String) } });
    expect(a.body[1]).toEqual({ errors: [{ message: 'Each operation of a batch must be a JSON object.', extensions: { code: 'BAD_REQUEST' } }] });
    expect(a.body[2].errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(a.body[2].extensions.requestId).toEqual(expect.any(String));
    expect(a.body[2].data).toBeUndefined();
    expect((await answer(post(JSON.stringify([[], null])))).body.map((x: { errors: { message: string }[] }) => x.errors[0]!.message)).toEqual([
      'Each operation of a batch must be a JSON object.',
      'Each operation of a batch must be a JSON object.',
    ]);
  });

  it('each operation after the first counts as a request of its key: the RateLimit headers are the last check’s', async () => {
    const one = await post(JSON.stringify({ query: ZIP_STATS }));
    const before = Number(one.headers.get('ratelimit-remaining'));
    const three = await post(JSON.stringify([{ query: ZIP_STATS }, { query: ZIP_STATS }, { query: ZIP_STATS }]));
    // This request, then two checks more: three below the one before it.
    expect(Number(three.headers.get('ratelimit-remaining'))).toBe(before - 3);
  });

  it('carries 1 to GRAPHQL_BATCH_MAX operations: none, or more, is 400 naming the bound', async () => {
    for (const items of [[], [1, 2, 3, 4]]) {
      const a = await answer(post(JSON.stringify(items)));
      expect([a.status, a.body.code]).toEqual([400, 'BAD_REQUEST']);
      expect(a.body.detail).toBe(`A batch carries 1 to 3 operations (GRAPHQL_BATCH_MAX); this one has ${items.length}.`);
      expect(a.body.errors).toEqual([{ name: 'batch', value: items.length, bound: '1 to 3 operations', message: 'batch must carry 1 to 3 operations' }]);
    }
    expect((await post(JSON.stringify([{ query: ZIP_STATS }, { query: ZIP_STATS }, { query: ZIP_STATS }]))).status).toBe(200);
  });
});

describe('streams', () => {
  const SUBSCRIPTION = JSON.stringify({ query: 'subscription { conditionsChanged(resortIds: ["vail"]) { resortId reason } }' });

  it('a subscription over SSE: the stream’s head, a first comment, then each event as it comes', async () => {
    const res = await post(SUBSCRIPTION, { accept: 'text/event-stream' });
    expect([res.status, res.headers.get('content-type'), res.headers.get('cache-control'), res.headers.get('x-accel-buffering')]).toEqual([
      200,
      'text/event-stream; charset=utf-8',
      'no-store',
      'no',
    ]);
    const s = streamReader(res);
    const text = await s.until((t) => t.includes('\n\n', 3), 'the first event');
    expect(text.startsWith(':\n\nevent: next\ndata: ')).toBe(true);
    const first = JSON.parse(text.slice(':\n\nevent: next\ndata: '.length, text.indexOf('\n\n', 3)));
    expect(first).toMatchObject({ data: { conditionsChanged: { resortId: 'vail', reason: 'INITIAL' } } });
    await s.cancel();
  });

  it('a subscription over multipart/mixed: the boundary, then each part with its length', async () => {
    const res = await post(SUBSCRIPTION, { accept: 'multipart/mixed' });
    expect(res.headers.get('content-type')).toBe('multipart/mixed; boundary="-"');
    const s = streamReader(res);
    const text = await s.until((t) => /\r\n\r\n\{.*\}\r\n---/s.test(t), 'the first part');
    const [, length, json] = /^\r\n---\r\nContent-Type: application\/json; charset=utf-8\r\nContent-Length: (\d+)\r\n\r\n(.*)\r\n---/s.exec(text)!;
    expect(Number(length)).toBe(Buffer.byteLength(json!));
    expect(JSON.parse(json!)).toMatchObject({ data: { conditionsChanged: { resortId: 'vail' } } });
    await s.cancel();
  });

  it('one result to a client that prefers a stream: one part, then the stream’s end', async () => {
    const res = await post(JSON.stringify({ query: ZIP_STATS }), { accept: 'text/event-stream' });
    const text = await streamReader(res).all();
    const m = /^:\n\nevent: next\ndata: (.*)\n\nevent: complete\ndata:\n\n$/s.exec(text);
    expect(m, text).not.toBeNull();
    expect(JSON.parse(m![1]!).data).toEqual(TOTAL_ZIPS);
    const multipart = await streamReader(await post(JSON.stringify({ query: ZIP_STATS }), { accept: 'multipart/mixed' })).all();
    expect(multipart.endsWith('\r\n-----\r\n')).toBe(true);
    // Preferring JSON, by order or by q-value: one JSON answer.
    for (const accept of ['application/json, text/event-stream', 'text/event-stream;q=0.5, application/json']) {
      const a = await answer(post(JSON.stringify({ query: ZIP_STATS }), { accept }));
      expect([a.type, a.body.data], accept).toEqual([JSON_UTF8, TOTAL_ZIPS]);
    }
  });

  it('@defer over multipart: the first part, then the deferred one, then the end', async () => {
    const query = '{ zipStats { totalZips } ... @defer(label: "zip") { zip(zip: "90210") { city } } }';
    const text = await streamReader(await post(JSON.stringify({ query }), { accept: 'multipart/mixed' })).all();
    const parts = [...text.matchAll(/\r\n\r\n(\{.*?\})\r\n---/gs)].map((m) => JSON.parse(m[1]!));
    expect(parts[0]).toMatchObject({ data: TOTAL_ZIPS, hasNext: true });
    expect(parts.at(-1)).toMatchObject({ hasNext: false });
    expect(JSON.stringify(parts)).toContain('Beverly Hills');
    expect(text.endsWith('-----\r\n')).toBe(true);
  });

  it('a stream past the key’s streams is refused (429 problem) and never starts; a closed stream gives its place back', async () => {
    const open = [];
    try {
      for (let i = 0; i < 2; i++) {
        const s = streamReader(await post(SUBSCRIPTION, { accept: 'text/event-stream' }));
        open.push(s);
        await s.until((t) => t.includes('event: next'), 'the first event');
      }
      const refused = await answer(post(SUBSCRIPTION, { accept: 'text/event-stream' }));
      expect([refused.status, refused.body.code, refused.headers.get('retry-after')]).toEqual([429, 'TOO_MANY_STREAMS', '1']);
      await open.pop()!.cancel();
      // Once the server has seen that stream close, its place is free again (each try is a request: no waiting on a timer).
      let next = await post(SUBSCRIPTION, { accept: 'text/event-stream' });
      for (let tries = 0; next.status !== 200 && tries < 500; tries++) {
        await next.text();
        next = await post(SUBSCRIPTION, { accept: 'text/event-stream' });
      }
      expect(next.status).toBe(200);
      open.push(streamReader(next));
    } finally {
      await Promise.all(open.map((s) => s.cancel()));
    }
  });
});

describe('what the client accepts', () => {
  it('negotiate: the preferred form for one result, by q-value then order, and the first stream named', () => {
    const cases: [string | undefined, ReturnType<typeof negotiate>][] = [
      [undefined, { single: 'json', stream: null }],
      ['', { single: 'json', stream: null }],
      ['application/json', { single: 'json', stream: null }],
      ['text/event-stream', { single: 'sse', stream: 'sse' }],
      ['multipart/mixed;deferSpec=20220824, application/json', { single: 'multipart', stream: 'multipart' }],
      ['application/json, text/event-stream', { single: 'json', stream: 'sse' }],
      ['text/event-stream;q=0.5, application/json', { single: 'json', stream: 'sse' }],
      ['text/event-stream; q=0, application/json', { single: 'json', stream: null }],
      ['image/png, text/event-stream;q=0', { single: 'json', stream: null }],
      ['image/png, text/event-stream;q=0.1', { single: 'sse', stream: 'sse' }],
      ['multipart/mixed, text/event-stream, application/json', { single: 'multipart', stream: 'multipart' }],
      ['text/event-stream, multipart/mixed, application/json', { single: 'sse', stream: 'sse' }],
      ['text/event-stream;q=0.4, multipart/mixed;q=0.5, */*;q=0.1', { single: 'multipart', stream: 'multipart' }],
      ['application/json;q=0.9, Text/Event-Stream, multipart/mixed', { single: 'sse', stream: 'sse' }],
      ['*/*, multipart/mixed;q=0.2, text/event-stream;q=0.3', { single: 'json', stream: 'sse' }],
    ];
    for (const [accept, wanted] of cases) expect(negotiate(accept), String(accept)).toEqual(wanted);
  });

  it('a client that sends no Accept reads JSON: a refusal is 200 to it', async () => {
    const answered = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${app().url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ query: '{ nope }' }));
    });
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body).errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('a refusal to a client that reads streams is one JSON answer with its status; a GET query to one is a stream, not a kept answer', async () => {
    const refused = await answer(post(JSON.stringify({ query: '{ nope }' }), { accept: 'text/event-stream' }));
    expect([refused.status, refused.type]).toEqual([400, JSON_UTF8]);
    const res = await get(`?query=${encodeURIComponent(ZIP_STATS)}`, { accept: 'text/event-stream' });
    expect([res.headers.get('content-type'), res.headers.get('etag')]).toEqual(['text/event-stream; charset=utf-8', null]);
    expect(await streamReader(res).all()).toMatch(/^:\n\nevent: next\ndata: .*\n\nevent: complete\ndata:\n\n$/s);
  });

  it('a refusal carries its own headers (405: allow)', async () => {
    const a = await get(`?query=${encodeURIComponent('mutation { runSync { state } }')}`);
    expect([a.status, a.headers.get('allow')]).toEqual([405, 'POST']);
    await a.text();
  });
});

describe('a batch’s cost and headers', () => {
  it('the request’s cost is the sum of its operations’; one operation keeps the request’s own RateLimit headers', async () => {
    const two = await post(JSON.stringify([{ query: ZIP_STATS }, { query: '{ zip(zip: "90210") { city } }' }]));
    await two.text();
    expect(loggedCost(two.headers.get('x-request-id'))).toBe(4);
    const one = await post(JSON.stringify([{ query: ZIP_STATS }]));
    expect([one.status, one.headers.get('ratelimit-limit')]).toEqual([200, expect.stringMatching(/^\d+$/)]);
    expect(((await one.json()) as { data: unknown }[])[0]!.data).toEqual(TOTAL_ZIPS);
  });
});

describe('a key over its rate within a batch', () => {
  const limited = sharedSourceApp('gateway-graphql-batch-rate-', { config: { apiKeysRate: 2 } });
  it('the operations past it are refused with its error; the answer’s RateLimit headers are the refusal’s', async () => {
    const res = await send(limited(), {
      method: 'POST',
      body: JSON.stringify([{ query: ZIP_STATS }, { query: ZIP_STATS }, { query: ZIP_STATS }]),
      headers: { 'content-type': 'application/json' },
    });
    const body = (await res.json()) as { data?: unknown; errors?: { message: string; extensions: { code: string } }[] }[];
    expect(body[0]!.data).toEqual(TOTAL_ZIPS);
    expect(body.slice(1).map((b) => b.errors?.[0]?.extensions.code)).toContain('RATE_LIMITED');
    expect(body.at(-1)!.errors![0]!.message).toMatch(/rate/i);
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(res.headers.get('retry-after')).toBeNull();
  });
});

describe('without keys (AUTH=off)', () => {
  const open = sharedSourceApp('gateway-graphql-open-', { config: { auth: false } });
  it('a GET needs a header no cross-site page can send: x-api-key, authorization or x-graphql-yoga-csrf; without one, 403', async () => {
    const url = `${open().url}/graphql?query=${encodeURIComponent(ZIP_STATS)}`;
    expect((await fetch(url)).status).toBe(403);
    for (const header of [{ 'x-api-key': 'any' }, { authorization: 'Bearer any' }, { 'x-graphql-yoga-csrf': '1' }] as Record<string, string>[]) {
      const r = await fetch(url, { headers: header });
      expect([r.status, ((await r.json()) as { data: unknown }).data], JSON.stringify(header)).toEqual([200, TOTAL_ZIPS]);
    }
  });
});

describe('a stream’s framing', () => {
  /** A raw HTTP request (version 1.0 or 1.1) and everything the server sent back until it closed. */
  const rawExchange = (version: '1.0' | '1.1', body: string, accept: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(app().port, '127.0.0.1', () =>
        socket.write(
          `POST /graphql HTTP/${version}\r\nhost: x\r\nx-api-key: ${TEST_KEY}\r\ncontent-type: application/json\r\naccept: ${accept}\r\n` +
            `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
        ),
      );
      let out = '';
      socket.on('data', (d) => {
        out += d;
        // A chunked answer has ended at its last chunk (the server keeps the connection).
        if (out.endsWith('\r\n0\r\n\r\n')) socket.destroy();
      });
      socket.on('close', () => resolve(out));
      socket.on('error', reject);
    });

  it('the stream’s head keeps the connection and asks proxies not to buffer; the parts are chunked for HTTP/1.1 and plain for HTTP/1.0', async () => {
    const body = JSON.stringify({ query: ZIP_STATS });
    const chunked = await rawExchange('1.1', body, 'text/event-stream');
    const [head11, rest11] = chunked.split('\r\n\r\n', 2) as [string, string];
    expect(head11).toMatch(/\r\ntransfer-encoding: chunked(\r\n|$)/i);
    expect(head11).toMatch(/\r\nx-accel-buffering: no\r\n/i);
    expect(head11).toMatch(/\r\ncache-control: no-store\r\n/i);
    const part = /event: next\ndata: (.*)\n\n/.exec(chunked)![0];
    expect(rest11).toContain(`${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`);
    const plain = await rawExchange('1.0', body, 'text/event-stream');
    const [head10, rest10] = plain.split('\r\n\r\n', 2) as [string, string];
    expect(head10).not.toMatch(/transfer-encoding/i);
    expect(head10).toMatch(/\r\nconnection: keep-alive\r\n/i);
    expect(rest10).toMatch(/^:\n\nevent: next\ndata: .*\n\nevent: complete\ndata:\n\n$/s);
    const multipart = await rawExchange('1.0', body, 'multipart/mixed');
    expect(multipart.split('\r\n\r\n').slice(1).join('\r\n\r\n')).toMatch(
      /^\r\n---\r\nContent-Type: application\/json; charset=utf-8\r\nContent-Length: \d+\r\n\r\n\{.*\}\r\n-----\r\n$/s,
    );
  });
});

describe('a stream the client leaves', () => {
  it('stops its source: the live feed loses the subscriber, over SSE and multipart', async () => {
    const before = await liveSubscribers(app());
    for (const accept of ['text/event-stream', 'multipart/mixed']) {
      const s = streamReader(await post(JSON.stringify({ query: 'subscription { conditionsChanged(resortIds: ["taos"]) { resortId } }' }), { accept }));
      await s.until((t) => t.includes('taos'), 'the first part');
      await subscribersBecome(app(), before + 1);
      await s.cancel();
      await subscribersBecome(app(), before);
    }
  });
});

describe('heartbeats', () => {
  it('an SSE stream writes a comment every heartbeat, a multipart subscription an empty part; none before', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const SUB = JSON.stringify({ query: 'subscription { conditionsChanged(resortIds: ["zermatt"]) { resortId } }' });
      const sse = streamReader(await post(SUB, { accept: 'text/event-stream' }));
      await sse.until((t) => t.includes('event: next'), 'the first event');
      const multipart = streamReader(await post(SUB, { accept: 'multipart/mixed' }));
      await multipart.until((t) => t.includes('zermatt'), 'the first part');
      const before = [sse.text, multipart.text];
      vi.advanceTimersByTime(11_999);
      // A request answered meanwhile: whatever the streams had to write in this time has been written.
      await (await post(JSON.stringify({ query: ZIP_STATS }))).text();
      vi.advanceTimersByTime(1);
      await sse.until((t) => t.length > before[0]!.length, 'a heartbeat');
      await multipart.until((t) => t.length > before[1]!.length, 'a heartbeat');
      expect(sse.text.slice(before[0]!.length)).toBe(':\n\n');
      expect(multipart.text.slice(before[1]!.length)).toBe('\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}\r\n---');
      await Promise.all([sse.cancel(), multipart.cancel()]);
    } finally {
      vi.useRealTimers();
    }
  });
});
