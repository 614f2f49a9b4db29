// Records, for each documented REST path, one real answer of its GraphQL operation and the REST
// body the server made of it, as test/fixtures/rest-shapes/*.json. test/unit/rest-shapes.test.ts
// then checks each route's `shape` turns that data into that body, so the shapes (pure functions
// of an operation's data) are unit-tested and mutation-tested like src/domain. Run it again after
// changing an operation or a shape: `npx tsx scripts/record-rest-shapes.ts`, then `npm run codegen`
// (/openapi.json's response examples are made from these answers: scripts/response-examples.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { print } from 'graphql';
import { startApp } from '../src/app/start.js';
import { loadConfig } from '../src/lib/config.js';
import { routes } from '../src/transports/rest/routes.js';
import { validate } from '../src/validation/validate.js';

/** One example request per path (the path parameters filled in). */
const EXAMPLES: Record<string, string> = {
  '/health': '/health',
  '/api/stats': '/api/stats',
  '/api/zip/:zip': '/api/zip/90210',
  '/api/zip/:zip/nearby': '/api/zip/90210/nearby?radiusMiles=3&limit=4',
  '/api/zip/:from/distance/:to': '/api/zip/90210/distance/10001',
  '/api/zips': '/api/zips?codes=90210,05401,00000,90210',
  '/api/zips/near': '/api/zips/near?lat=39.64&lng=-106.37&radiusMiles=10&limit=3',
  '/api/states': '/api/states',
  '/api/states/:state/zipcodes': '/api/states/VT/zipcodes?limit=3&offset=2',
  '/api/city/:city': '/api/city/Burlington?state=VT',
  '/api/resorts': '/api/resorts?continent=europe&limit=3&units=imperial',
  '/api/resorts/:id': '/api/resorts/vail',
  '/api/resorts/:id/weather': '/api/resorts/zermatt/weather?units=imperial',
  '/api/resorts/:id/trails': '/api/resorts/alta/trails',
  '/api/resorts/:id/lifts': '/api/resorts/whistler-blackcomb/lifts',
  '/api/resorts/:id/compare': '/api/resorts/vail/compare?with=zermatt',
  '/api/resorts/:id/history': '/api/resorts/thredbo/history?days=7&years=2',
  '/api/conditions/top-snow': '/api/conditions/top-snow?limit=3',
  '/api/conditions/open-now': '/api/conditions/open-now?minOpenTrailsPct=100',
  '/api/conditions/storm-watch': '/api/conditions/storm-watch',
  '/api/insights/snow': '/api/insights/snow?days=3',
  '/api/sync/status': '/api/sync/status',
  '/api/sync/history': '/api/sync/history?limit=5',
};

const dir = mkdtempSync(path.join(tmpdir(), 'rest-shapes-'));
const app = await startApp({
  config: { ...loadConfig({}), port: 0, host: '127.0.0.1', dbPath: path.join(dir, 'g.sqlite'), logLevel: 'silent', auth: false, syncIntervalMinutes: 0 },
  now: () => new Date('2027-01-15T12:00:00Z'),
});
await app.ready();
const out = path.join(import.meta.dirname, '..', 'test', 'fixtures', 'rest-shapes');
try {
  for (const route of routes) {
    if (route.method === 'POST') continue; // starts a run: its answer is the status, as /api/sync/status
    const example = EXAMPLES[route.path];
    if (!example) throw new Error(`no example for ${route.path}`);
    const url = new URL(example, 'http://x');
    const raw: Record<string, string> = Object.fromEntries(url.searchParams);
    const pattern = route.path.split('/');
    for (const [i, seg] of url.pathname.split('/').entries()) if (pattern[i]!.startsWith(':')) raw[pattern[i]!.slice(1)] = decodeURIComponent(seg);
    const params = validate(route.params, raw);
    const variables = route.variables ? route.variables(params) : params;
    const g = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: print(route.operation), variables }),
    });
    const { data, errors } = (await g.json()) as { data: unknown; errors?: unknown };
    if (errors) throw new Error(`${route.path}: ${JSON.stringify(errors)}`);
    const body = await (await fetch(app.url + example)).json();
    const name = route.path.replace(/^\/(api\/)?/, '').replace(/[/:]+/g, '-');
    writeFileSync(path.join(out, `${name}.json`), `${JSON.stringify({ path: route.path, request: example, params: raw, variables, data, body })}\n`);
    console.log(`${name}.json`);
  }
} finally {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}
