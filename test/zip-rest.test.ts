import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { expectProblem, getJson, startTestServer, TEST_KEY } from './helpers/server.js';

let app: RunningApp;
beforeAll(async () => {
  app = await startTestServer();
});
afterAll(() => app.close());

/** Distance by the chord between unit vectors: independent of the server's haversine code. */
function chordMiles(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const v = (lat: number, lng: number) => {
    const [p, l] = [(lat * Math.PI) / 180, (lng * Math.PI) / 180];
    return [Math.cos(p) * Math.cos(l), Math.cos(p) * Math.sin(l), Math.sin(p)];
  };
  const a = v(lat1, lng1);
  const b = v(lat2, lng2);
  const chord = Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);
  return 2 * 3958.8 * Math.asin(chord / 2);
}

const ZIP_RECORD_KEYS = ['city', 'county', 'countyFips', 'lastUpdated', 'lat', 'lng', 'stateCode', 'stateName', 'timezone', 'zip'];

describe.each(['', '/v1'])('ZIP REST paths under "%s"', (prefix) => {
  it('GET /api/stats counts ZIPs and the 50 states + DC', async () => {
    const r = await getJson(app, `${prefix}/api/stats`);
    expect(r.status).toBe(200);
    expect(r.body.totalStates).toBe(51);
    expect(r.body.totalZips).toBe(40_977);
    expect(r.body.totalZips).toBeLessThan(42_000);
  });

  it('nearby breaks exact distance ties by ZIP (El Paso’s 799xx and 885xx ZIPs share one centroid)', async () => {
    const r = await getJson(app, `${prefix}/api/zip/79910/nearby?radiusMiles=0.01&limit=200`);
    const results = r.body.results as { zip: string; stateCode: string; distanceMiles: number }[];
    // The ZIPs at exactly the same point, every one at distance 0, in ZIP order.
    expect(results.length).toBeGreaterThan(50);
    expect(results.every((z) => z.distanceMiles === 0)).toBe(true);
    const zips = results.map((z) => z.zip);
    expect(zips).toEqual([...zips].sort());
    expect(zips.slice(0, 3)).toEqual(['79914', '79917', '79923']);
    const five = (await getJson(app, `${prefix}/api/zip/79910/nearby?radiusMiles=0.01&limit=5`)).body.results.map((z: { zip: string }) => z.zip);
    expect(five).toEqual(zips.slice(0, 5));
  });

  it('GET /api/zip/{zip} returns known records', async () => {
    const bh = await getJson(app, `${prefix}/api/zip/90210`);
    expect(bh.status).toBe(200);
    expect(bh.contentType).toMatch(/^application\/json/);
    expect(Object.keys(bh.body).sort()).toEqual(ZIP_RECORD_KEYS);
    expect(bh.body).toMatchObject({
      zip: '90210',
      city: 'Beverly Hills',
      stateCode: 'CA',
      stateName: 'California',
      county: 'Los Angeles',
      countyFips: '06037',
    });
    // An ISO 8601 timestamp, as the ZIP document says: the dataset's date at midnight UTC.
    expect(bh.body.lastUpdated).toBe('2026-03-11T00:00:00.000Z');
    expect(bh.body.timezone).toBe('America/Los_Angeles');
    expect(bh.body.lat).toBeCloseTo(34.09, 1);
    expect(bh.body.lng).toBeCloseTo(-118.41, 1);
    const ny = await getJson(app, `${prefix}/api/zip/10001`);
    expect(ny.body).toMatchObject({ city: 'New York', stateCode: 'NY', countyFips: '36061' });
  });

  it('GET /api/zip/{zip} rejects malformed ZIPs with 400 and unknown ones with 404', async () => {
    for (const bad of ['9021', '902101', 'abcde', '9021a', '%20%20%20%20%20']) {
      const p = expectProblem(await getJson(app, `${prefix}/api/zip/${bad}`), 400);
      expect(p.code).toBe('BAD_USER_INPUT');
      expect(p.errors![0]).toMatchObject({ name: 'zip', bound: 'exactly 5 digits' });
    }
    // The REST shim answers its own 400 (no error thrown); the body says what GraphQL says.
    const rest = await getJson(app, `${prefix}/api/zip/9021`);
    expect(Object.keys(rest.body)).toEqual(['type', 'title', 'status', 'detail', 'instance', 'code', 'requestId', 'errors']);
    const gql = await getJson(app, '/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ zip(zip: "9021") { zip } }' }),
    });
    expect(gql.body.errors[0]).toMatchObject({ message: rest.body.detail, extensions: { code: 'BAD_USER_INPUT', errors: rest.body.errors } });
    const nf = expectProblem(await getJson(app, `${prefix}/api/zip/00000`), 404);
    expect(nf.code).toBe('NOT_FOUND');
    expect(nf.detail).toContain('00000');
  });

  it('GET /api/zip/{zip}/nearby: distances, order, radius and limit', async () => {
    const r = await getJson(app, `${prefix}/api/zip/90210/nearby?radiusMiles=10&limit=200`);
    expect(r.status).toBe(200);
    expect(r.body.center).toEqual({ zip: '90210', lat: 34.0901, lng: -118.4065 });
    expect(r.body.radiusMiles).toBe(10);
    const results = r.body.results as { zip: string; lat: number; lng: number; distanceMiles: number }[];
    expect(results.length).toBeGreaterThan(50);
    expect(results.map((z) => z.zip)).not.toContain('90210');
    for (let i = 0; i < results.length; i++) {
      const z = results[i]!;
      expect(Object.keys(z).sort()).toEqual(['city', 'county', 'distanceMiles', 'lat', 'lng', 'stateCode', 'zip']);
      expect(z.distanceMiles).toBeLessThanOrEqual(10);
      expect(Math.abs(z.distanceMiles - chordMiles(34.0901, -118.4065, z.lat, z.lng))).toBeLessThan(0.006);
      if (i > 0) expect(z.distanceMiles).toBeGreaterThanOrEqual(results[i - 1]!.distanceMiles);
    }
    const limited = await getJson(app, `${prefix}/api/zip/90210/nearby?radiusMiles=10&limit=5`);
    expect(limited.body.results).toEqual(results.slice(0, 5));
  });

  it('GET /api/zip/{zip}/nearby defaults to 25 miles and 50 results', async () => {
    const r = await getJson(app, `${prefix}/api/zip/10001/nearby`);
    expect(r.body.radiusMiles).toBe(25);
    expect(r.body.results).toHaveLength(50);
  });

  it('GET /api/zip/{zip}/nearby bounds: just inside passes, just outside is 400 naming the parameter', async () => {
    for (const ok of ['radiusMiles=200', 'radiusMiles=0.01', 'limit=1', 'limit=200', 'radiusMiles=200&limit=200']) {
      const r = await getJson(app, `${prefix}/api/zip/10001/nearby?${ok}`);
      expect(r.status, ok).toBe(200);
    }
    const max = await getJson(app, `${prefix}/api/zip/10001/nearby?radiusMiles=200&limit=200`);
    expect(max.body.results).toHaveLength(200);
    const cases: [string, string, string][] = [
      ['radiusMiles=0', 'radiusMiles', '> 0'],
      ['radiusMiles=-1', 'radiusMiles', '> 0'],
      ['radiusMiles=200.01', 'radiusMiles', '<= 200'],
      ['radiusMiles=abc', 'radiusMiles', 'a finite number'],
      ['radiusMiles=', 'radiusMiles', 'a finite number'],
      ['radiusMiles=Infinity', 'radiusMiles', 'a finite number'],
      ['limit=0', 'limit', '>= 1'],
      ['limit=201', 'limit', '<= 200'],
      ['limit=2.5', 'limit', 'an integer'],
      ['limit=ten', 'limit', 'an integer'],
      ['limit=1&limit=2', 'limit', 'a single integer'],
    ];
    for (const [query, name, bound] of cases) {
      const p = expectProblem(await getJson(app, `${prefix}/api/zip/10001/nearby?${query}`), 400);
      expect(p.errors, query).toContainEqual(expect.objectContaining({ name, bound }));
    }
    expectProblem(await getJson(app, `${prefix}/api/zip/1000/nearby`), 400);
    expectProblem(await getJson(app, `${prefix}/api/zip/00000/nearby`), 404);
  });

  it('GET /api/states lists 50 states and DC with ZIP counts', async () => {
    const r = await getJson(app, `${prefix}/api/states`);
    expect(r.body).toHaveLength(51);
    expect(r.body).toContainEqual({ stateCode: 'DC', stateName: 'District of Columbia', zipCount: expect.any(Number) });
    const stats = await getJson(app, `${prefix}/api/stats`);
    expect(r.body.reduce((n: number, s: { zipCount: number }) => n + s.zipCount, 0)).toBe(stats.body.totalZips);
    for (const s of r.body) expect(Object.keys(s).sort()).toEqual(['stateCode', 'stateName', 'zipCount']);
  });

  it('GET /api/states/{state}/zipcodes pages consistently in ZIP order', async () => {
    const all = await getJson(app, `${prefix}/api/states/VT/zipcodes?limit=1000`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ stateCode: 'VT', stateName: 'Vermont', limit: 1000, offset: 0 });
    const zips = (all.body.zipcodes as { zip: string }[]).map((z) => z.zip);
    expect(zips).toHaveLength(all.body.total);
    expect([...zips].sort()).toEqual(zips);
    const pages: string[] = [];
    for (let offset = 0; offset < all.body.total; offset += 37) {
      const page = await getJson(app, `${prefix}/api/states/vt/zipcodes?limit=37&offset=${offset}`);
      expect(page.body.total).toBe(all.body.total);
      pages.push(...page.body.zipcodes.map((z: { zip: string }) => z.zip));
    }
    expect(pages).toEqual(zips);
    const past = await getJson(app, `${prefix}/api/states/VT/zipcodes?offset=${all.body.total}`);
    expect(past.body.zipcodes).toEqual([]);
    const dflt = await getJson(app, `${prefix}/api/states/ca/zipcodes`);
    expect(dflt.body).toMatchObject({ stateCode: 'CA', limit: 100, offset: 0 });
    expect(dflt.body.zipcodes).toHaveLength(100);
    expect(Object.keys(dflt.body.zipcodes[0]).sort()).toEqual(ZIP_RECORD_KEYS);
  });

  it('GET /api/states/{state}/zipcodes bounds and unknown states', async () => {
    for (const ok of ['limit=1', 'limit=1000', 'offset=0']) {
      expect((await getJson(app, `${prefix}/api/states/CA/zipcodes?${ok}`)).status, ok).toBe(200);
    }
    // Past a GraphQL Int (what the operation carries) up to the documented bound: an empty page, as asked.
    for (const offset of [2 ** 31, Number.MAX_SAFE_INTEGER]) {
      const far = await getJson(app, `${prefix}/api/states/CA/zipcodes?offset=${offset}`);
      expect(far.body, String(offset)).toMatchObject({ stateCode: 'CA', offset, zipcodes: [] });
    }
    const cases: [string, string, string, string][] = [
      ['CA', 'limit=0', 'limit', '>= 1'],
      ['CA', 'limit=1001', 'limit', '<= 1000'],
      ['CA', 'offset=-1', 'offset', '>= 0'],
      ['CA', 'offset=1.5', 'offset', 'an integer'],
      ['CA', 'offset=9007199254740993', 'offset', '<= 9007199254740991'],
      ['CAL', '', 'state', 'a 2-letter state code'],
      ['C1', '', 'state', 'a 2-letter state code'],
    ];
    for (const [state, query, name, bound] of cases) {
      const p = expectProblem(await getJson(app, `${prefix}/api/states/${state}/zipcodes?${query}`), 400);
      expect(p.errors, `${state}?${query}`).toContainEqual(expect.objectContaining({ name, bound }));
    }
    expect(expectProblem(await getJson(app, `${prefix}/api/states/XX/zipcodes`), 404).code).toBe('NOT_FOUND');
    // Territories and military codes in the source data are not states here.
    expectProblem(await getJson(app, `${prefix}/api/states/PR/zipcodes`), 404);
  });

  it('GET /api/city/{city} is case-insensitive and filters by state', async () => {
    const a = await getJson(app, `${prefix}/api/city/Beverly%20Hills`);
    const b = await getJson(app, `${prefix}/api/city/BEVERLY%20hills`);
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect(a.body.city).toBe('Beverly Hills');
    expect(a.body.count).toBe(a.body.zipcodes.length);
    expect(a.body.zipcodes.map((z: { zip: string }) => z.zip)).toContain('90210');
    expect(a.body).not.toHaveProperty('stateCode');

    const all = await getJson(app, `${prefix}/api/city/springfield`);
    const states = new Set(all.body.zipcodes.map((z: { stateCode: string }) => z.stateCode));
    expect(states.size).toBeGreaterThan(5);
    const il = await getJson(app, `${prefix}/api/city/springfield?state=il`);
    expect(il.body.stateCode).toBe('IL');
    expect(il.body.count).toBeGreaterThan(0);
    expect(il.body.count).toBeLessThan(all.body.count);
    expect(il.body.zipcodes.every((z: { stateCode: string; city: string }) => z.stateCode === 'IL' && z.city === 'Springfield')).toBe(true);
  });

  it('GET /api/city/{city}: 404 for no match, 400 for a bad state or name', async () => {
    expect(expectProblem(await getJson(app, `${prefix}/api/city/Atlantis`), 404).code).toBe('NOT_FOUND');
    expectProblem(await getJson(app, `${prefix}/api/city/Springfield?state=ZZ`), 404);
    const bad = expectProblem(await getJson(app, `${prefix}/api/city/Springfield?state=ILL`), 400);
    expect(bad.errors![0]).toMatchObject({ name: 'state', value: 'ILL' });
    expectProblem(await getJson(app, `${prefix}/api/city/%20`), 400);
    // No letter or digit (a lone no-break space): a bad request, as cities(prefix:) says, not an unknown city.
    expect(expectProblem(await getJson(app, `${prefix}/api/city/%C2%A0`), 400).errors![0]).toMatchObject({ name: 'city', bound: 'a letter or digit' });
    expect(expectProblem(await getJson(app, `${prefix}/api/city/${'x'.repeat(101)}`), 400).errors![0]!.bound).toBe('at most 100 characters');
    expect((await getJson(app, `${prefix}/api/city/${'x'.repeat(100)}`)).status).toBe(404);
    expectProblem(await getJson(app, `${prefix}/api/city/%E0%A4%A`), 400);
  });
});

describe('HTTP edges', () => {
  it('unknown paths are 404 problem+json; other methods 405', async () => {
    expectProblem(await getJson(app, '/api/nope'), 404);
    expectProblem(await getJson(app, '/v2/api/stats'), 404);
    const r = await getJson(app, '/api/stats', { method: 'POST' });
    expectProblem(r, 405);
    expect(r.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers requests pipelined on one connection whole and in order (200, 400, 304, 404, 200)', async () => {
    const etag = (await getJson(app, '/api/zip/10001')).headers.get('etag')!;
    const ask = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nhost: x\r\nx-api-key: ${TEST_KEY}\r\n${extra}\r\n`;
    const { port } = new URL(app.url);
    const socket = connect(Number(port), '127.0.0.1');
    // All five in one write: the server reads them in one turn and ends their answers together.
    socket.write(
      ask('/api/zip/90210') +
        ask('/api/zip/9021x') +
        ask('/api/zip/10001', `if-none-match: ${etag}\r\n`) +
        ask('/api/zip/00000') +
        ask('/api/zip/05001', 'connection: close\r\n'),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    await new Promise((resolve) => socket.on('close', resolve));
    let rest = Buffer.concat(chunks).toString('latin1');
    const answers: { status: number; body: string }[] = [];
    while (rest.length) {
      const headEnd = rest.indexOf('\r\n\r\n');
      const head = rest.slice(0, headEnd);
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      answers.push({ status: Number(head.split(' ')[1]), body: Buffer.from(rest.slice(headEnd + 4, headEnd + 4 + length), 'latin1').toString('utf8') });
      rest = rest.slice(headEnd + 4 + length);
    }
    expect(answers.map((a) => a.status)).toEqual([200, 400, 304, 404, 200]);
    expect(JSON.parse(answers[0]!.body).zip).toBe('90210');
    expect(JSON.parse(answers[1]!.body).errors[0].name).toBe('zip');
    expect(answers[2]!.body).toBe('');
    expect(JSON.parse(answers[4]!.body).zip).toBe('05001');
  });

  it('echoes a sane x-request-id and puts it in error bodies', async () => {
    const r = await getJson(app, '/api/zip/1', { headers: { 'x-request-id': 'trace-123' } });
    expect(r.headers.get('x-request-id')).toBe('trace-123');
    expect(r.body.requestId).toBe('trace-123');
    const generated = await getJson(app, '/api/stats', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('pages of a state, from SQL and from memory', () => {
  it('are the same before the ZIP table is in memory (one statement for a batch) and after (none)', async () => {
    const own = await startTestServer({ countStatements: true });
    try {
      const query = `{
        vt: state(code: "VT") { zipcodes(limit: 20, offset: 5) { zip city county countyFips lat lng stateCode stateName timezone lastUpdated } }
        nh: state(code: "NH") { zipcodes(limit: 20, offset: 5) { zip city county countyFips lat lng stateCode stateName timezone lastUpdated } }
        ri: state(code: "RI") { zipcodes(limit: 1000) { zip } }
        past: state(code: "DE") { zipcodes(limit: 10, offset: 5000) { zip } }
      }`;
      const pages = async () => {
        const before = own.statementCount();
        const graphql = await getJson(own, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
        const rest = await getJson(own, '/api/states/ME/zipcodes?limit=7&offset=40');
        return { graphql: graphql.body, rest: rest.body, statements: own.statementCount() - before };
      };
      const fromSql = await pages();
      // The first nearby search reads the ZIP table into memory (the spatial index is built over it).
      expect((await getJson(own, '/api/zip/05401/nearby?limit=1')).status).toBe(200);
      const fromMemory = await pages();
      expect(fromSql.graphql.errors).toBeUndefined();
      expect(fromSql.graphql.data.vt.zipcodes).toHaveLength(20);
      expect(fromSql.graphql.data.ri.zipcodes.length).toBeGreaterThan(50);
      expect(fromSql.graphql.data.past.zipcodes).toEqual([]);
      expect(fromSql.rest.zipcodes).toHaveLength(7);
      expect(fromMemory.graphql.data).toEqual(fromSql.graphql.data);
      expect(fromMemory.rest).toEqual(fromSql.rest);
      // Two windows in the GraphQL query, one for REST: each a statement from SQL, none from memory.
      expect(fromSql.statements).toBeGreaterThanOrEqual(3);
      expect(fromMemory.statements).toBe(0);
    } finally {
      await own.close();
    }
  });
});

describe('leaf serializers skipped only where they change nothing', () => {
  it('a nearby answer of plain leaves (REST) is byte-for-byte what a document with an ID beside it gets', async () => {
    // The REST nearby operation selects only strings and floats, so graphql-jit runs it without its
    // leaf serializers; asking for the center's `details { id }` as well keeps them on.
    const fields = 'center { zip lat lng } radiusMiles results { zip city stateCode county lat lng distanceMiles }';
    const post = (query: string) =>
      getJson(app, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    for (const zip of ['90210', '10001', '99501', '96812']) {
      const rest = await getJson(app, `/api/zip/${zip}/nearby?radiusMiles=30&limit=100`);
      const plain = await post(`{ nearbyZips(zip: "${zip}", radiusMiles: 30, limit: 100) { ${fields} } }`);
      const serialized = await post(`{ nearbyZips(zip: "${zip}", radiusMiles: 30, limit: 100) { ${fields} } zip(zip: "${zip}") { id lastUpdated } }`);
      expect(rest.status).toBe(200);
      expect(rest.body.results.length).toBeGreaterThan(0);
      expect(JSON.stringify(plain.body.data.nearbyZips)).toBe(JSON.stringify(rest.body));
      expect(JSON.stringify(serialized.body.data.nearbyZips)).toBe(JSON.stringify(rest.body));
      expect(serialized.body.data.zip).toEqual({ id: zip, lastUpdated: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/) });
    }
  });

  it('a lookup with a DateTime among plain leaves skips only the built-in serializers: the same bytes as with an ID beside it', async () => {
    // No ID, no enum: the strings and floats go out as resolved, lastUpdated through its scalar.
    const fields = 'zip city stateCode stateName county countyFips lat lng timezone lastUpdated';
    const post = (query: string) =>
      getJson(app, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    for (const zip of ['90210', '10001', '99501', '96812']) {
      const rest = await getJson(app, `/api/zip/${zip}`);
      const plain = await post(`{ zip(zip: "${zip}") { ${fields} } }`);
      const serialized = await post(`{ zip(zip: "${zip}") { ${fields} id } }`);
      expect(rest.status).toBe(200);
      const { id, ...rest2 } = serialized.body.data.zip;
      expect(id).toBe(zip);
      expect(JSON.stringify(plain.body.data.zip)).toBe(JSON.stringify(rest2));
      expect(JSON.stringify(plain.body.data.zip)).toBe(JSON.stringify(rest.body));
    }
  });
});
