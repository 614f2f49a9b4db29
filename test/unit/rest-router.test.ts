import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { PERCENT_ENCODING } from '../../src/http/query-string.js';
import { OFFERED } from '../../src/transports/rest/list-formats.js';
import { TEST_KEY } from '../helpers/server.js';
import { noErrorLogged, sharedSourceApp } from './app-world.js';

/**
 * The REST router (transports/rest/router.ts) and a list's CSV and NDJSON forms (list-stream.ts)
 * on the server built from src/: routing, methods, parameters as the client sent them, the
 * problems it answers, kept answers and their ETags, and the list forms streamed.
 */

const app = sharedSourceApp('gateway-rest-router-');
noErrorLogged(app);

const rest = (path: string, init: RequestInit = {}) => {
  const headers = new Headers(init.headers);
  if (!headers.has('x-api-key')) headers.set('x-api-key', TEST_KEY);
  return fetch(`${app().url}${path}`, { ...init, headers });
};
async function json(path: string, init: RequestInit = {}) {
  const res = await rest(path, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** A GET read as bytes, as sent (fetch would undo a coding). */
function raw(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${app().url}${path}`, { headers: { 'x-api-key': TEST_KEY, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const BEVERLY_HILLS = { zip: '90210', city: 'Beverly Hills', stateCode: 'CA' };

describe('routing', () => {
  it('a documented path answers its shaped body, at / and at /v1; a path of no route is 404', async () => {
    const a = await json('/api/zip/90210');
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject(BEVERLY_HILLS);
    expect((await json('/v1/api/zip/90210')).body).toEqual(a.body);
    const distance = await json('/api/zip/90210/distance/10001');
    expect(distance.body).toMatchObject({ distanceMiles: 2453.35 });
    for (const path of ['/api/nothing', '/api/zip/90210/elsewhere', '/api/zip/90210/distance/10001/more', '/api/zips/near/x']) {
      const none = await json(path);
      expect([none.status, none.body.code, none.body.detail], path).toEqual([404, 'NOT_FOUND', `No such path: ${path}`]);
    }
  });

  it('a method the route has not is 405 naming those it has; HEAD answers a GET route', async () => {
    const post = await json('/api/zip/90210', { method: 'POST' });
    expect([post.status, post.headers.get('allow'), post.body.code, post.body.detail]).toEqual([
      405,
      'GET, HEAD',
      'METHOD_NOT_ALLOWED',
      'POST is not allowed here; use GET, HEAD',
    ]);
    const get = await json('/api/sync/run');
    expect([get.status, get.headers.get('allow'), get.body.detail]).toEqual([405, 'POST', 'GET is not allowed here; use POST']);
    const head = await rest('/api/zip/90210', { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
  });

  it('a POST route runs its mutation and answers its shaped body, never kept', async () => {
    const run = await json('/api/sync/run', { method: 'POST' });
    expect([run.status, run.headers.get('cache-control'), run.headers.get('etag')]).toEqual([200, 'no-store', null]);
    expect(run.body).toMatchObject({ state: 'RUNNING' });
    expect(Object.keys(run.body).sort()).toEqual(Object.keys((await json('/api/sync/status')).body).sort());
  });
});

describe('parameters', () => {
  it('a path segment is percent-decoded; one that is not percent-encoding is 400 naming it', async () => {
    expect((await json('/api/city/Beverly%20Hills')).body).toMatchObject({
      city: 'Beverly Hills',
      zipcodes: expect.arrayContaining([expect.objectContaining({ zip: '90210' })]),
    });
    const bad = await json('/api/city/%E0%A4%A');
    expect([bad.status, bad.body.code, bad.body.detail]).toEqual([400, 'BAD_USER_INPUT', `city is not ${PERCENT_ENCODING}`]);
    expect(bad.body.errors).toEqual([{ name: 'city', value: '%E0%A4%A', bound: PERCENT_ENCODING, message: `city must be ${PERCENT_ENCODING}` }]);
  });

  it('a query parameter that is not percent-encoding is 400 naming it', async () => {
    const bad = await json('/api/zips?codes=%E0%A4%A');
    expect([bad.status, bad.body.detail, bad.body.errors[0].name]).toEqual([400, `codes is not ${PERCENT_ENCODING}`, 'codes']);
  });

  it('a list given repeated reads as the documented comma form; any other parameter repeated is refused', async () => {
    const repeated = await json('/api/zips?codes=90210&codes=05401&codes=');
    expect(repeated.body).toEqual((await json('/api/zips?codes=90210,05401,')).body);
    expect(repeated.body.zipcodes.map((z: { zip: string }) => z.zip)).toEqual(['90210', '05401']);
    const twice = await json('/api/zip/90210/nearby?limit=2&limit=3');
    expect([twice.status, twice.body.code, twice.body.errors[0].name]).toEqual([400, 'BAD_USER_INPUT', 'limit']);
    const once = await json('/api/zip/90210/nearby?limit=2');
    expect(once.body.results).toHaveLength(2);
  });

  it('a value out of its bounds is 400 with each problem; an unknown thing is the resolver’s 404', async () => {
    const bad = await json('/api/zip/abc');
    expect([bad.status, bad.body.code, bad.body.errors[0]]).toEqual([400, 'BAD_USER_INPUT', expect.objectContaining({ name: 'zip', value: 'abc' })]);
    const unknown = await json('/api/zip/99999');
    expect([unknown.status, unknown.body.code, unknown.body.errors[0]]).toEqual([404, 'NOT_FOUND', expect.objectContaining({ name: 'zip', value: '99999' })]);
    expect(unknown.body.detail).toMatch(/99999/);
  });
});

describe('kept answers', () => {
  it('a GET is kept: its ETag, 304 when the client has it, the same body from the cache after', async () => {
    const first = await rest('/api/zip/05401');
    const etag = first.headers.get('etag')!;
    expect([first.status, first.headers.get('cache-control')]).toEqual([200, expect.stringMatching(/max-age=\d+/)]);
    const body = await first.json();
    const again = await rest('/api/zip/05401', { headers: { 'if-none-match': etag } });
    expect([again.status, again.headers.get('etag')]).toEqual([304, etag]);
    const kept = await rest('/api/zip/05401');
    expect([kept.headers.get('etag'), await kept.json()]).toEqual([etag, body]);
  });

  it('a list’s JSON varies by Accept; another route’s does not', async () => {
    const list = await rest('/api/states/VT/zipcodes?limit=2');
    expect(list.headers.get('vary')).toMatch(/accept/i);
    expect(((await list.json()) as { zipcodes: unknown[] }).zipcodes).toHaveLength(2);
    const kept = await rest('/api/states/VT/zipcodes?limit=2');
    expect(kept.headers.get('vary')).toMatch(/(^|, )accept(,|$)/i);
    const one = await rest('/api/zip/05401');
    expect(one.headers.get('vary') ?? '').not.toMatch(/(^|, )accept(,|$)/i);
  });
});

describe('the request’s log line', () => {
  const logged = sharedSourceApp('gateway-rest-log-', { logLevel: 'info' });
  const costOf = async (path: string) => {
    const res = await fetch(`${logged().url}${path}`, { headers: { 'x-api-key': TEST_KEY } });
    await res.arrayBuffer();
    const id = res.headers.get('x-request-id');
    return logged()
      .log()
      .find((l) => l.msg === 'request' && l.reqId === id)?.cost;
  };

  it('carries what the route’s operation cost', async () => {
    // Twenty ZIP records, each of several fields: more than one unit each.
    expect(await costOf('/api/states/VT/zipcodes?limit=20')).toBeGreaterThan(20);
  });
});

describe('list forms', () => {
  const VT = '/api/states/VT/zipcodes?limit=3';
  /** CSV as sent (fetch asks for gzip unless told otherwise). */
  const CSV = { accept: 'text/csv', 'accept-encoding': 'identity' };

  it('CSV: the header row then a row per item, CRLF-ended, nested objects flattened; its ETag and the list’s caching', async () => {
    const res = await rest(VT, { headers: { ...CSV } });
    expect([res.status, res.headers.get('content-type'), res.headers.get('vary')]).toEqual([
      200,
      'text/csv; charset=utf-8; header=present',
      'accept, accept-encoding',
    ]);
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{27}\.csv"$/);
    const lines = (await res.text()).split('\r\n');
    const json = (await (await rest(VT)).json()) as { zipcodes: { zip: string }[] };
    expect(lines[0]).toMatch(/^zip,/);
    expect(lines.slice(1, 4).map((l) => l.split(',')[0])).toEqual(json.zipcodes.map((z) => z.zip));
    expect(lines).toHaveLength(5);
    expect(lines[4]).toBe('');
    // The same request on the same data: the same tag, and 304 (in any of its codings, weak or listed).
    for (const inm of [etag, `W/${etag}`, `"x", ${etag.replace('.csv"', '.csv.gz"')}`, '*']) {
      const again = await rest(VT, { headers: { ...CSV, 'if-none-match': inm } });
      expect([again.status, again.headers.get('etag'), await again.text()], inm).toEqual([304, etag, '']);
    }
    // Another tag, or ours with a W/ inside it (only a leading W/ marks a weak tag): the rows.
    for (const inm of ['"other.csv"', `${etag.slice(0, 2)}W/${etag.slice(2)}`])
      expect((await rest(VT, { headers: { ...CSV, 'if-none-match': inm } })).status, inm).toBe(200);
    // Another form or other parameters: another tag.
    const ndjson = await rest(VT, { headers: { ...CSV, accept: 'application/x-ndjson' } });
    expect(ndjson.headers.get('etag')).toMatch(/\.ndjson"$/);
    const other = await rest('/api/states/VT/zipcodes?limit=4', { headers: { ...CSV } });
    expect(other.headers.get('etag')).not.toBe(etag);
  });

  it('NDJSON: one item a line, the list’s items as the JSON list has them', async () => {
    const res = await rest(VT, { headers: { accept: 'application/x-ndjson' } });
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    const text = await res.text();
    const json = (await (await rest(VT)).json()) as { zipcodes: unknown[] };
    expect(text).toBe(`${json.zipcodes.map((z) => JSON.stringify(z)).join('\n')}\n`);
  });

  it('a page longer than a chunk is whole, in order, compressed as the client asks (its tag names the coding)', async () => {
    const page = '/api/states/CA/zipcodes?limit=1000';
    const plain = await (await rest(page, { headers: { accept: 'text/csv', 'accept-encoding': 'identity' } })).text();
    const rows = plain.split('\r\n');
    expect(rows).toHaveLength(1002);
    const zips = rows.slice(1, -1).map((r) => r.split(',')[0]!);
    expect(zips).toEqual([...zips].sort());
    expect(new Set(zips).size).toBe(1000);
    const gz = await raw(page, { accept: 'text/csv', 'accept-encoding': 'gzip' });
    expect([gz.headers['content-encoding'], gz.headers.etag]).toEqual(['gzip', expect.stringMatching(/\.csv\.gz"$/)]);
    expect(gunzipSync(gz.body).toString()).toBe(plain);
    const br = await raw(page, { accept: 'text/csv', 'accept-encoding': 'br' });
    expect([br.headers['content-encoding'], br.headers.etag]).toEqual(['br', expect.stringMatching(/\.csv\.br"$/)]);
    expect(brotliDecompressSync(br.body).toString()).toBe(plain);
    // 304 to the tag of the coding it has.
    expect((await raw(page, { accept: 'text/csv', 'accept-encoding': 'br', 'if-none-match': br.headers.etag as string })).status).toBe(304);
    const nd = await (await rest(page, { headers: { accept: 'application/x-ndjson', 'accept-encoding': 'identity' } })).text();
    expect(nd.split('\n')).toHaveLength(1001);
  });

  it('HEAD of a list form: its head, no body', async () => {
    const head = await rest(VT, { method: 'HEAD', headers: { accept: 'text/csv' } });
    expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([200, 'text/csv; charset=utf-8; header=present', '']);
  });

  it('a list asked for in a form it has not is 406 naming what it offers; another route answers JSON whatever is asked', async () => {
    const a = await json(VT, { headers: { accept: 'image/png' } });
    expect([a.status, a.headers.get('vary'), a.body.code]).toEqual([406, 'accept', 'NOT_ACCEPTABLE']);
    expect(a.body.detail).toBe(`This list is answered as ${OFFERED}; the request accepts "image/png".`);
    expect(a.body.errors).toEqual([{ name: 'accept', value: 'image/png', bound: OFFERED, message: `accept must name ${OFFERED}` }]);
    const one = await rest('/api/zip/90210', { headers: { accept: 'text/csv' } });
    expect([one.status, one.headers.get('content-type')]).toEqual([200, 'application/json; charset=utf-8']);
  });

  it('a list form’s parameters are checked before anything is sent', async () => {
    const bad = await json('/api/states/VT/zipcodes?limit=0', { headers: { accept: 'text/csv' } });
    expect([bad.status, bad.body.errors[0].name]).toEqual([400, 'limit']);
    const none = await json('/api/states/ZZ/zipcodes', { headers: { accept: 'text/csv' } });
    expect(none.status).toBe(404);
  });
});

describe('over the key’s cost budget', () => {
  // One request a second buys a budget of 1 x 100 x 1 = 100 units a second.
  const cheap = sharedSourceApp('gateway-rest-budget-', { env: { COST_UNITS_PER_REQUEST: '100', COST_WINDOW_SECONDS: '1' }, config: { apiKeysRate: 1 } });
  it('a route whose operation costs more is 429 with the budget’s RateLimit headers, as is the same over /graphql', async () => {
    const big = '/api/states/CA/zipcodes?limit=1000';
    const res = await fetch(`${cheap().url}${big}`, { headers: { 'x-api-key': TEST_KEY } });
    const body = (await res.json()) as { code: string; detail: string };
    expect([res.status, body.code]).toEqual([429, 'RATE_LIMITED']);
    expect(body.detail).toMatch(/costs \d+ and the key's cost budget of 100 per 1 s/);
    expect(res.headers.get('ratelimit-limit')).toBe('100');
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    // The next second, over /graphql: the same refusal, with the budget's headers in place of the key check's.
    cheap().clock.advance(1000);
    const g = await fetch(`${cheap().url}/graphql`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ state(code: "CA") { zipcodes(limit: 1000) { zip } } }' }),
    });
    const gBody = (await g.json()) as { errors: { extensions: { code: string } }[] };
    expect([g.status, gBody.errors[0]!.extensions.code, g.headers.get('ratelimit-limit')]).toEqual([429, 'RATE_LIMITED', '100']);
    expect(g.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('a list form the client has', () => {
  // One request a second buys a budget of 1 x 100 x 10 = 1,000 units a 10 s window.
  const budgeted = sharedSourceApp('gateway-rest-304-', { env: { COST_UNITS_PER_REQUEST: '100', COST_WINDOW_SECONDS: '10' }, config: { apiKeysRate: 1 } });
  it('is 304 before its operation runs: nothing is charged to the budget', async () => {
    const page = '/api/states/CA/zipcodes?limit=60';
    const headers = { 'x-api-key': TEST_KEY, accept: 'text/csv' };
    const first = await fetch(`${budgeted().url}${page}`, { headers });
    expect(first.status).toBe(200);
    await first.text();
    // Run again, it would cost as much again, more than is left of the window's budget.
    for (let i = 0; i < 3; i++) {
      budgeted().clock.advance(1000);
      const again = await fetch(`${budgeted().url}${page}`, { headers: { ...headers, 'if-none-match': first.headers.get('etag')! } });
      expect(again.status).toBe(304);
    }
    budgeted().clock.advance(1000);
    const json = await fetch(`${budgeted().url}${page}`, { headers: { 'x-api-key': TEST_KEY } });
    expect(json.status).toBe(429);
  });
});
