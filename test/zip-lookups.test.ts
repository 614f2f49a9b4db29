import fc from 'fast-check';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { expectProblem, getJson, startTestServer, TEST_KEY } from './helpers/server.js';

/**
 * Distance between two ZIPs, bulk and reverse lookups over REST and GraphQL, and the lists as CSV
 * (parsed by csv-parse, a parser nobody here wrote) and NDJSON. Distances and nearest ZIPs are
 * checked against a brute force over every record, with a formula of the test's own.
 */

let app: RunningApp;
/** Every ZIP record, read through the API as CSV, 1,000 a page. */
const all: { zip: string; lat: number; lng: number; city: string; stateCode: string }[] = [];
beforeAll(async () => {
  app = await startTestServer();
  const states = (await getJson(app, '/api/states')).body as { stateCode: string; zipCount: number }[];
  for (const s of states) {
    for (let offset = 0; offset < s.zipCount; offset += 1000) {
      const res = await fetch(`${app.url}/api/states/${s.stateCode}/zipcodes?limit=1000&offset=${offset}`, {
        headers: { 'x-api-key': TEST_KEY, accept: 'text/csv' },
      });
      const rows = parseCsv(await res.text(), { columns: true }) as Record<string, string>[];
      all.push(...rows.map((r) => ({ zip: r.zip!, lat: Number(r.lat), lng: Number(r.lng), city: r.city!, stateCode: r.stateCode! })));
    }
  }
}, 120_000);
afterAll(() => app.close());

/** Great-circle miles by the spherical law of cosines: not the server's formula. */
function cosineMiles(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const r = Math.PI / 180;
  const c = Math.sin(lat1 * r) * Math.sin(lat2 * r) + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.cos((lng2 - lng1) * r);
  return 3958.8 * Math.acos(Math.min(1, Math.max(-1, c)));
}

/** The `limit` records nearest to a point within `radius` miles, by the test's own formula: nearest first, one place's ZIPs by code. */
function nearestByBruteForce(lat: number, lng: number, radius: number, limit: number) {
  return all
    .map((z) => ({ zip: z.zip, lat: z.lat, lng: z.lng, miles: cosineMiles(lat, lng, z.lat, z.lng) }))
    .filter((z) => z.miles <= radius)
    .sort((a, b) => a.miles - b.miles || (a.zip < b.zip ? -1 : 1))
    .slice(0, limit);
}

const ask = async (query: string) =>
  (await getJson(app, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) })).body;

describe('the records the lists give', () => {
  it('are every ZIP, once', () => {
    expect(all).toHaveLength(40_977);
    expect(new Set(all.map((z) => z.zip)).size).toBe(40_977);
  });
});

describe('distance between two ZIP codes', () => {
  it('REST and GraphQL give the same numbers, the great circle between the two records, for any pair', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(all.length - 1), fc.nat(all.length - 1), async (i, j) => {
        const [a, b] = [all[i]!, all[j]!];
        const rest = await getJson(app, `/api/zip/${a.zip}/distance/${b.zip}`);
        expect(rest.status).toBe(200);
        const miles = cosineMiles(a.lat, a.lng, b.lat, b.lng);
        expect(Math.abs(rest.body.distanceMiles - miles)).toBeLessThan(0.011 + miles * 1e-9);
        expect(Math.abs(rest.body.distanceKm - miles * 1.609344)).toBeLessThan(0.011 + miles * 1e-9);
        expect(rest.body.from).toEqual({ zip: a.zip, city: a.city, stateCode: a.stateCode, lat: a.lat, lng: a.lng });
        expect(rest.body.to.zip).toBe(b.zip);
        const g = await ask(`{ zipDistance(from: "${a.zip}", to: "${b.zip}") { from { zip } to { zip } distanceMiles distanceKm } }`);
        expect(g.data.zipDistance).toEqual({
          from: { zip: a.zip },
          to: { zip: b.zip },
          distanceMiles: rest.body.distanceMiles,
          distanceKm: rest.body.distanceKm,
        });
      }),
      { numRuns: 60 },
    );
  });

  it('is 0 from a ZIP to itself, and the same both ways', async () => {
    expect((await getJson(app, '/api/zip/05401/distance/05401')).body.distanceMiles).toBe(0);
    const there = (await getJson(app, '/api/zip/90210/distance/10001')).body;
    const back = (await getJson(app, '/api/zip/10001/distance/90210')).body;
    expect(back.distanceMiles).toBe(there.distanceMiles);
    expect(there.distanceMiles).toBeCloseTo(2453.35, 1);
  });

  it('a malformed or unknown code is the 400 or 404 the lookup gives, naming which one', async () => {
    const malformed = expectProblem(await getJson(app, '/api/zip/90210/distance/1234'), 400);
    expect(malformed.errors).toEqual([{ name: 'to', value: '1234', bound: 'exactly 5 digits', message: 'to must be exactly 5 digits' }]);
    const unknown = expectProblem(await getJson(app, '/api/zip/00000/distance/90210'), 404);
    expect(unknown.errors).toMatchObject([{ name: 'from', value: '00000' }]);
    const g = await ask('{ zipDistance(from: "90210", to: "99999") { distanceMiles } }');
    expect(g.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', errors: [{ name: 'to', value: '99999' }] });
  });
});

describe('bulk lookup', () => {
  it('answers the codes found in the order asked, each once, and lists the others apart; GraphQL zips(codes:) has the same records', async () => {
    const r = await getJson(app, '/api/zips?codes=05401,00000,90210,05401,99999');
    expect(r.status).toBe(200);
    expect(r.body.zipcodes.map((z: { zip: string }) => z.zip)).toEqual(['05401', '90210']);
    expect(r.body.notFound).toEqual(['00000', '99999']);
    const one = (await getJson(app, '/api/zip/90210')).body;
    expect(r.body.zipcodes[1]).toEqual(one);
    const g = await ask('{ zips(codes: ["05401", "00000", "90210"]) { zip city } }');
    expect(g.data.zips).toEqual([{ zip: '05401', city: 'Burlington' }, null, { zip: '90210', city: 'Beverly Hills' }]);
    // The parameter repeated is the same list.
    expect((await getJson(app, '/api/zips?codes=05401&codes=90210')).body.zipcodes).toHaveLength(2);
  });

  it('at most 100 codes (400 naming the bound); none, or a malformed one, is a 400 too', async () => {
    const codes = all.slice(0, 101).map((z) => z.zip);
    expect((await getJson(app, `/api/zips?codes=${codes.slice(0, 100).join(',')}`)).body.zipcodes).toHaveLength(100);
    const over = expectProblem(await getJson(app, `/api/zips?codes=${codes.join(',')}`), 400);
    expect(over.errors).toMatchObject([{ name: 'codes', bound: 'at most 100 distinct items' }]);
    expect(expectProblem(await getJson(app, '/api/zips?codes='), 400).errors).toMatchObject([{ name: 'codes', bound: 'at least 1 item' }]);
    expect(expectProblem(await getJson(app, '/api/zips'), 400).errors).toMatchObject([{ name: 'codes' }]);
    expect(expectProblem(await getJson(app, '/api/zips?codes=90210,9021'), 400).errors).toMatchObject([{ name: 'codes.1', bound: 'exactly 5 digits' }]);
  });
});

describe('a list parameter', () => {
  it('counts copies once against its bound: 101 of one ZIP is one ZIP (REST in both forms; GraphQL answers each position)', async () => {
    const copies = Array.from({ length: 101 }, () => '05401');
    for (const query of [`codes=${copies.join(',')}`, copies.map((c) => `codes=${c}`).join('&')]) {
      const r = await getJson(app, `/api/zips?${query}`);
      expect(r.status, query.slice(0, 40)).toBe(200);
      expect(r.body.zipcodes.map((z: { zip: string }) => z.zip)).toEqual(['05401']);
    }
    const g = await ask(`{ zips(codes: [${copies.map((c) => `"${c}"`).join(',')}]) { zip } }`);
    expect(g.errors).toBeUndefined();
    expect(g.data.zips).toHaveLength(101);
    // 101 distinct codes are over it.
    const distinct = all.slice(0, 101).map((z) => z.zip);
    expect(expectProblem(await getJson(app, `/api/zips?codes=${distinct.join(',')}`), 400).errors).toEqual([
      expect.objectContaining({ name: 'codes', bound: 'at most 100 distinct items' }),
    ]);
  });

  it('ignores empty items alike in both forms: a,,b is a&(empty)&b', async () => {
    const expected = (await getJson(app, '/api/zips?codes=90210,10001')).body;
    expect(expected.zipcodes).toHaveLength(2);
    for (const query of ['codes=90210,,10001', 'codes=90210&codes=&codes=10001', 'codes=90210,&codes=10001,', 'codes=,90210&codes=10001']) {
      const r = await getJson(app, `/api/zips?${query}`);
      expect(r.status, query).toBe(200);
      expect(r.body, query).toEqual(expected);
    }
    // Nothing but empty items is no item, in either form.
    for (const query of ['codes=', 'codes=,', 'codes=&codes=']) {
      expect(expectProblem(await getJson(app, `/api/zips?${query}`), 400).errors, query).toEqual([
        expect.objectContaining({ name: 'codes', bound: 'at least 1 item' }),
      ]);
    }
  });
});

describe('reverse lookup', () => {
  it('the nearest ZIPs to any point in the 50 states, nearest first: a brute force over every record agrees', async () => {
    const byZip = new Map(all.map((z) => [z.zip, z]));
    await fc.assert(
      fc.asyncProperty(
        fc.nat(all.length - 1),
        fc.double({ min: -0.3, max: 0.3, noNaN: true }),
        fc.double({ min: -0.3, max: 0.3, noNaN: true }),
        async (i, dLat, dLng) => {
          const lat = Math.round((all[i]!.lat + dLat) * 1e4) / 1e4;
          const lng = Math.round((all[i]!.lng + dLng) * 1e4) / 1e4;
          const r = await getJson(app, `/api/zips/near?lat=${lat}&lng=${lng}&radiusMiles=20&limit=10`);
          expect(r.status).toBe(200);
          expect(r.body.center).toEqual({ lat, lng });
          expect(r.body.radiusMiles).toBe(20);
          const brute = nearestByBruteForce(lat, lng, 20, 10);
          const got = r.body.results as { zip: string; distanceMiles: number }[];
          expect(got).toHaveLength(brute.length);
          for (const [k, z] of got.entries()) expect(Math.abs(z.distanceMiles - brute[k]!.miles)).toBeLessThan(0.011);
          // The ZIPs themselves, in the brute force's order: the ZIPs of one place (an exact tie) by
          // code. Two different places equally far to within the formulas' rounding may come either way.
          const nearTie = (zip: string, want: (typeof brute)[number]) => {
            const z = byZip.get(zip);
            return z !== undefined && (z.lat !== want.lat || z.lng !== want.lng) && Math.abs(cosineMiles(lat, lng, z.lat, z.lng) - want.miles) < 1e-6;
          };
          expect(got.map((z) => z.zip)).toEqual(brute.map((w, k) => (nearTie(got[k]!.zip, w) ? got[k]!.zip : w.zip)));
          const g = await ask(`{ zipsNear(lat: ${lat}, lng: ${lng}, radiusMiles: 20, limit: 10) { zip distanceMiles } }`);
          expect(g.data.zipsNear).toEqual(got.map((z) => ({ zip: z.zip, distanceMiles: z.distanceMiles })));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('ZIPs at one spot are an exact tie, answered by code, wherever the limit cuts through them', async () => {
    // Six Honolulu ZIPs share one centroid, 0.0001° south of the point asked about.
    const spot = all.filter((z) => z.lat === 21.3062 && z.lng === -157.8585).map((z) => z.zip);
    expect(spot).toEqual(['96805', '96806', '96807', '96808', '96809', '96810']);
    const want = nearestByBruteForce(21.3063, -157.8585, 1, 8);
    expect(want.slice(0, 6).map((z) => z.zip)).toEqual(spot);
    for (let limit = 1; limit <= 8; limit++) {
      const r = await getJson(app, `/api/zips/near?lat=21.3063&lng=-157.8585&radiusMiles=1&limit=${limit}`);
      expect(
        r.body.results.map((z: { zip: string }) => z.zip),
        `limit ${limit}`,
      ).toEqual(want.slice(0, limit).map((z) => z.zip));
      const g = await ask(`{ zipsNear(lat: 21.3063, lng: -157.8585, radiusMiles: 1, limit: ${limit}) { zip } }`);
      expect(g.data.zipsNear, `limit ${limit}`).toEqual(want.slice(0, limit).map((z) => ({ zip: z.zip })));
    }
  });

  it('a point outside −90..90 / −180..180, or no point, is a 400 naming it', async () => {
    expect(expectProblem(await getJson(app, '/api/zips/near?lat=90.5&lng=0'), 400).errors).toMatchObject([{ name: 'lat', bound: '<= 90' }]);
    expect(expectProblem(await getJson(app, '/api/zips/near?lat=0&lng=-181'), 400).errors).toMatchObject([{ name: 'lng', bound: '>= -180' }]);
    expect(expectProblem(await getJson(app, '/api/zips/near?lng=0'), 400).errors).toMatchObject([{ name: 'lat' }]);
    expect(expectProblem(await getJson(app, '/api/zips/near?lat=40&lng=-100&limit=201'), 400).errors).toMatchObject([{ name: 'limit', bound: '<= 200' }]);
  });
});

/** Every REST list, with the field that holds its items. */
const LISTS: [string, string][] = [
  ['/api/states/VT/zipcodes?limit=50&offset=10', 'zipcodes'],
  ['/api/city/Springfield', 'zipcodes'],
  ['/api/zip/05401/nearby?radiusMiles=10', 'results'],
  ['/api/zips?codes=90210,05401,10001', 'zipcodes'],
  ['/api/zips/near?lat=39.64&lng=-106.37', 'results'],
  ['/api/resorts?continent=europe&limit=20&offset=5', 'resorts'],
];

/** An item as CSV flattens it: nested objects as dotted columns, every value as text. */
function flattened(item: Record<string, unknown>, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(item)) {
    if (v !== null && typeof v === 'object') Object.assign(out, flattened(v as Record<string, unknown>, `${prefix}${k}.`));
    else out[`${prefix}${k}`] = v === null ? '' : String(v);
  }
  return out;
}

const fetchAs = (p: string, accept: string, headers: Record<string, string> = {}) =>
  fetch(`${app.url}${p}`, { headers: { 'x-api-key': TEST_KEY, accept, ...headers } });

describe.each(LISTS)('%s as CSV and NDJSON', (p, field) => {
  it('the same items as the JSON page, in order: CSV (RFC 4180, a header row) and NDJSON (one object a line)', async () => {
    const json = (await getJson(app, p)).body[field] as Record<string, unknown>[];
    expect(json.length).toBeGreaterThan(1);
    const csv = await fetchAs(p, 'text/csv');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    const text = await csv.text();
    expect(text.endsWith('\r\n')).toBe(true);
    expect(parseCsv(text, { columns: true })).toEqual(json.map((item) => flattened(item)));
    const nd = await fetchAs(p, 'application/x-ndjson');
    expect(nd.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    const lines = (await nd.text()).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => JSON.parse(l))).toEqual(json);
  });

  it('one ETag per representation, each revalidating; Vary names accept; JSON stays the default', async () => {
    const tags = new Map<string, string>();
    for (const accept of ['application/json', 'text/csv', 'application/x-ndjson']) {
      const r = await fetchAs(p, accept, { 'accept-encoding': 'identity' });
      await r.arrayBuffer();
      expect(r.headers.get('vary')).toMatch(/\baccept\b/);
      expect(r.headers.get('cache-control')).toMatch(/^private, max-age=\d+/);
      tags.set(accept, r.headers.get('etag')!);
      const again = await fetchAs(p, accept, { 'accept-encoding': 'identity', 'if-none-match': r.headers.get('etag')! });
      expect(again.status).toBe(304);
    }
    expect(new Set(tags.values()).size).toBe(3);
    // No Accept, or a browser's, is JSON.
    for (const accept of ['', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8']) {
      const r = await fetchAs(p, accept);
      expect(r.headers.get('content-type'), accept).toMatch(/^application\/json/);
      await r.arrayBuffer();
    }
    // A higher q wins.
    expect((await fetchAs(p, 'application/json;q=0.5, text/csv')).headers.get('content-type')).toMatch(/^text\/csv/);
  });

  it('an Accept nothing matches is a 406 naming what is offered', async () => {
    const r = await getJson(app, p, { headers: { accept: 'application/xml' } });
    expect(expectProblem(r, 406).errors).toEqual([
      {
        name: 'accept',
        value: 'application/xml',
        bound: 'application/json, text/csv or application/x-ndjson',
        message: 'accept must name application/json, text/csv or application/x-ndjson',
      },
    ]);
  });
});

describe('CSV of a whole page', () => {
  it('1,000 ZIPs of a state, streamed (no one string: chunked, no length), compressed like JSON when asked', async () => {
    const r = await fetchAs('/api/states/CA/zipcodes?limit=1000', 'text/csv', { 'accept-encoding': 'gzip' });
    expect(r.headers.get('content-encoding')).toBe('gzip');
    expect(r.headers.get('content-length')).toBeNull();
    expect(r.headers.get('transfer-encoding')).toBe('chunked');
    // The same request again: the same tag (the same bytes); another page, another tag.
    const again = await fetchAs('/api/states/CA/zipcodes?limit=1000', 'text/csv', { 'accept-encoding': 'gzip' });
    await again.arrayBuffer();
    expect(again.headers.get('etag')).toBe(r.headers.get('etag'));
    const other = await fetchAs('/api/states/CA/zipcodes?limit=999', 'text/csv', { 'accept-encoding': 'gzip' });
    await other.arrayBuffer();
    expect(other.headers.get('etag')).not.toBe(r.headers.get('etag'));
    // fetch has undone the gzip already.
    const text = await r.text();
    const rows = parseCsv(text, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(1000);
    expect(rows[0]!.stateCode).toBe('CA');
  });

  it('names come back exactly as JSON has them, in UTF-8 (quoting itself: test/unit/list-formats.test.ts)', async () => {
    const resorts = await fetchAs('/api/resorts?limit=200', 'text/csv');
    const text = await resorts.text();
    const rows = parseCsv(text, { columns: true }) as Record<string, string>[];
    const json = (await getJson(app, '/api/resorts?limit=200')).body.resorts as { name: string }[];
    expect(rows.map((r) => r.name)).toEqual(json.map((r) => r.name));
    expect(rows.some((r) => [...r.name!].some((c) => c.charCodeAt(0) > 127))).toBe(true);
  });
});

describe('GraphQL: the new lookups on every field’s terms', () => {
  it('zipDistance refuses a malformed code naming it', async () => {
    const g = await ask('{ zipDistance(from: "9021", to: "90210") { distanceMiles } }');
    expect(g.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ name: 'from', bound: 'exactly 5 digits' }] });
  });
});
