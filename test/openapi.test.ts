import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RunningApp } from '../src/app/start.js';
import { routes } from '../src/transports/rest/routes.js';
import { expectProblem, getJson, startTestServer, TEST_KEY, type HttpResult } from './helpers/server.js';
import { everyDocumentedPath } from './helpers/paths.js';
import { openApiValidator } from './helpers/openapi.js';
import { validate } from '../src/validation/validate.js';

/**
 * /openapi.json is checked by a real OpenAPI 3.1 validator, and every route's real answers (200s
 * and each kind of error) are validated against the schema the document gives for that status.
 */

type Json = Record<string, any>;
let app: RunningApp;
let doc: Json;
let validator: Awaited<ReturnType<typeof openApiValidator>>;

beforeAll(async () => {
  app = await startTestServer();
  const r = await getJson(app, '/openapi.json', { apiKey: null });
  expect(r.status).toBe(200);
  doc = r.body;
  validator = await openApiValidator(doc);
});
afterAll(async () => {
  await app?.close();
});

/** The operation the document gives for a path template and method. */
function operationOf(template: string, method: string): Json {
  const op = doc.paths[template.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
  expect(op, `${method} ${template} is in the document`).toBeDefined();
  return op;
}

/** A real answer, validated against the document; the document must also accept the request. */
async function expectConformingAnswer(method: string, url: string, status: number, apiKey: string | null = TEST_KEY): Promise<HttpResult> {
  const r = await getJson(app, url, { method, apiKey });
  expect(r.status, `${method} ${url}`).toBe(status);
  validator.expectConforms(method, url, r);
  return r;
}

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 (checked by an OpenAPI schema validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is what schema/openapi.json holds (what review sees and the change policy compares)', () => {
    expect(doc).toEqual(JSON.parse(readFileSync(path.join(import.meta.dirname, '..', 'schema', 'openapi.json'), 'utf8')));
  });

  it('every operation and parameter says what it is, with an example from the real data that the server accepts, and its default', () => {
    let parameters = 0;
    for (const route of routes) {
      const op = operationOf(route.path, route.method ?? 'GET');
      expect(op.description, `${route.path}: description`).toMatch(/\w{3}/);
      const examples: Record<string, string> = {};
      for (const p of op.parameters as Json[]) {
        parameters++;
        expect(p.description, `${route.path} ${p.name}: description`).toMatch(/\w{3}/);
        expect(p.example, `${route.path} ${p.name}: example`).toBeDefined();
        examples[p.name] = String(p.example);
      }
      // The examples together are a request the route's own validation accepts.
      expect(() => validate(route.params, examples), route.path).not.toThrow();
    }
    expect(parameters).toBeGreaterThan(40);
    const nearby = operationOf('/api/zip/:zip/nearby', 'GET').parameters as Json[];
    expect(nearby.find((p) => p.name === 'zip')).toMatchObject({ example: '90210', description: expect.stringMatching(/5 digits/i) });
    expect(nearby.find((p) => p.name === 'radiusMiles')!.schema.default).toBe(25);
    expect(operationOf('/api/resorts/:id', 'GET').parameters.find((p: Json) => p.name === 'id').example).toBe('vail');
    expect(doc.info.contact.name).toBeTruthy();
    expect(doc.info.license.identifier).toBe('CC-BY-4.0');
  });

  it("every GET path's 200 shows a real answer as its example (lists cut short), which its own schema accepts", async () => {
    // Asked first: the checks below hold this process's thread for seconds on a busy machine, past
    // the server's keep-alive, and the pooled connection the next request took had been closed.
    const zip = await getJson(app, '/api/zip/90210');
    const paths = everyDocumentedPath().filter((p) => p.method === 'GET');
    expect(paths.length).toBeGreaterThan(15);
    for (const { path: url } of paths) {
      const template = routes.find((r) => (r.method ?? 'GET') === 'GET' && new RegExp(`^${r.path.replace(/:\w+/g, '[^/]+')}$`).test(url.split('?')[0]!))!.path;
      const example = operationOf(template, 'GET').responses['200'].content['application/json'].example;
      expect(example, `${template}: example`).toBeDefined();
      validator.expectConforms('GET', url, { status: 200, contentType: 'application/json', headers: new Headers(), body: example });
    }
    // Real data, not placeholders: the ZIP example is what the server answers for 90210 today.
    expect(operationOf('/api/zip/:zip', 'GET').responses['200'].content['application/json'].example).toEqual(zip.body);
    const nearby = operationOf('/api/zip/:zip/nearby', 'GET').responses['200'].content['application/json'].example;
    expect(nearby.center).toMatchObject({ zip: '90210', lat: 34.0901 });
    expect(nearby.results).toHaveLength(2);
    expect(operationOf('/api/resorts/:id', 'GET').responses['200'].content['application/json'].example).toMatchObject({ id: 'vail', name: 'Vail' });
  });

  it('documents HEAD beside every GET, and the probes: 405 for other methods, 503 while starting', async () => {
    for (const [template, ops] of Object.entries(doc.paths as Record<string, Json>)) {
      if (!ops.get) continue;
      expect(ops.head, `HEAD ${template}`).toBeDefined();
      expect(Object.keys(ops.head.responses)).toEqual(Object.keys(ops.get.responses));
    }
    const head = await fetch(`${app.url}/api/zip/90210`, { method: 'HEAD', headers: { 'x-api-key': TEST_KEY } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    for (const probe of ['/livez', '/readyz']) {
      expect(Object.keys(doc.paths[probe].get.responses)).toEqual(['200', '405', '503']);
      const r = await getJson(app, probe, { method: 'POST', apiKey: null });
      expectProblem(r, 405);
      expect(r.headers.get('allow')).toBe('GET, HEAD');
      expect((await fetch(`${app.url}${probe}`, { method: 'HEAD' })).status).toBe(200);
    }
  });

  it('describes every route of the table, both servers, and the key scheme', () => {
    for (const route of routes) operationOf(route.path, route.method ?? 'GET');
    expect(doc.servers.map((s: Json) => s.url)).toEqual(['/', '/v1']);
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(doc.paths['/livez'].get.security).toEqual([]);
  });

  it('gives parameters their bounds and defaults from the shared validation', () => {
    const nearby = operationOf('/api/zip/:zip/nearby', 'GET');
    const radius = nearby.parameters.find((p: Json) => p.name === 'radiusMiles');
    expect(radius).toMatchObject({ in: 'query', required: false, schema: { default: 25, maximum: 200 } });
    expect(nearby.parameters.find((p: Json) => p.name === 'zip')).toMatchObject({ in: 'path', required: true });
    const history = operationOf('/api/resorts/:id/history', 'GET');
    expect(history.parameters.find((p: Json) => p.name === 'days').schema).toMatchObject({ minimum: 7, maximum: 90, default: 30 });
  });

  it('is served without a key and does not count against anything', async () => {
    const r = await fetch(`${app.url}/openapi.json`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(r.headers.get('ratelimit-remaining')).toBeNull();
  });
});

describe('real answers conform to the document (openapi-backend, an independent validator)', () => {
  const paths = everyDocumentedPath().flatMap((p) => [p, { ...p, path: `/v1${p.path}` }]);

  it.each(paths)('$method $path: the document accepts the request and the 200 body matches', async ({ method, path }) => {
    expect(validator.requestErrors(method, path)).toEqual([]);
    await expectConformingAnswer(method, path, 200);
  });

  it('every example in the README is a request the document accepts, answered as it says', async () => {
    const examples = readmeExamples();
    expect(examples).toContain('/api/resorts/zermatt?units=imperial');
    expect(examples.length).toBeGreaterThanOrEqual(9);
    for (const url of examples) {
      // The README's one error example asks for too much on purpose: the document refuses it too.
      const refused = /radiusMiles=500/.test(url);
      if (refused) expect(validator.requestErrors('GET', url), url).not.toEqual([]);
      else expect(validator.requestErrors('GET', url), url).toEqual([]);
      const r = await getJson(app, url);
      expect(r.status, url).toBe(refused ? 400 : 200);
      validator.expectConforms('GET', url, r);
    }
  });

  it('units: exactly what the server accepts is what the document accepts', async () => {
    for (const units of ['metric', 'imperial', 'METRIC', 'IMPERIAL']) {
      const url = `/api/resorts/vail?units=${units}`;
      expect(validator.requestErrors('GET', url), url).toEqual([]);
      expect((await expectConformingAnswer('GET', url, 200)).body.units.system).toBe(units.toUpperCase());
    }
    for (const units of ['Imperial', 'kelvin', '']) {
      const url = `/api/resorts/vail?units=${units}`;
      expect(validator.requestErrors('GET', url), url).not.toEqual([]);
      expectProblem(await expectConformingAnswer('GET', url, 400), 400);
    }
  });

  it('errors match the problem schema of their status: 400, 401, 404; a refused parameter is one the document refuses too', async () => {
    const cases: [string, number, string | null][] = [
      ['/api/zip/abc', 400, TEST_KEY],
      ['/api/zip/90210/nearby?radiusMiles=900', 400, TEST_KEY],
      ['/api/resorts/vail/history?days=1', 400, TEST_KEY],
      ['/api/resorts?limit=0', 400, TEST_KEY],
      ['/v1/api/states/CA/zipcodes?limit=1001', 400, TEST_KEY],
      ['/api/zip/00000', 404, TEST_KEY],
      ['/api/resorts/no-such-resort', 404, TEST_KEY],
      ['/v1/api/city/Nowhereville', 404, TEST_KEY],
      ['/api/zip/90210', 401, null],
      ['/api/resorts', 401, 'szg_not_a_key'],
    ];
    for (const [url, status, apiKey] of cases) {
      const r = await expectConformingAnswer('GET', url, status, apiKey);
      const body = expectProblem(r, status);
      if (status === 400) {
        expect(body.errors?.[0]).toMatchObject({ name: expect.any(String), bound: expect.any(String) });
        expect(validator.requestErrors('GET', url), url).not.toEqual([]);
      }
    }
  });

  it("every integer parameter's documented maximum is the real one: at it an answer the document accepts, one past it a 400 naming the parameter and the bound once", async () => {
    let checked = 0;
    for (const [template, ops] of Object.entries(doc.paths as Json)) {
      const params: Json[] = ops.get?.parameters ?? [];
      for (const target of params.filter((p) => p.schema.type === 'integer' && p.schema.maximum !== undefined)) {
        const urlWith = (value: number) => {
          let path = template;
          const query: string[] = [];
          for (const p of params) {
            const v = p === target ? String(value) : encodeURIComponent(Array.isArray(p.example) ? p.example.join(',') : String(p.example));
            if (p.in === 'path') path = path.replace(`{${p.name}}`, v);
            else query.push(`${p.name}=${v}`);
          }
          return `${path}?${query.join('&')}`;
        };
        const max = target.schema.maximum as number;
        const at = await expectConformingAnswer('GET', urlWith(max), 200);
        expect(validator.requestErrors('GET', urlWith(max)), urlWith(max)).toEqual([]);
        if (target.name === 'offset') expect(Object.values(at.body).find(Array.isArray), urlWith(max)).toEqual([]);
        const past = expectProblem(await getJson(app, urlWith(max + 1)), 400);
        expect(past.errors, urlWith(max + 1)).toEqual([expect.objectContaining({ name: target.name, bound: `<= ${max}` })]);
        expect(past.detail).toBe(`${target.name} must be <= ${max}`);
        checked++;
      }
    }
    // limit, offset, days, years and the rest, on a dozen paths.
    expect(checked).toBeGreaterThan(10);
  });

  it('a 403 for a key without the admin scope, and a 429 past the quota, match too', async () => {
    const limited = await startTestServer({ config: { apiKeys: ['szg_plain_key'], apiAdminKeys: [], apiKeysQuota: 2 } });
    try {
      const forbidden = await getJson(limited, '/api/sync/run', { method: 'POST', apiKey: 'szg_plain_key' });
      expectProblem(forbidden, 403);
      validator.expectConforms('POST', '/api/sync/run', forbidden);
      // The 403 used one request of the quota of two.
      expect((await getJson(limited, '/api/states', { apiKey: 'szg_plain_key' })).status).toBe(200);
      const tooMany = await getJson(limited, '/api/states', { apiKey: 'szg_plain_key' });
      expectProblem(tooMany, 429);
      validator.expectConforms('GET', '/api/states', tooMany);
    } finally {
      await limited.close();
    }
  });
});

/** The REST requests the README and docs/ show (their curl lines), as paths with their query. */
function readmeExamples(): string[] {
  const root = path.join(import.meta.dirname, '..');
  const docs = readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(root, 'docs', f));
  const readme = [path.join(root, 'README.md'), ...docs].map((f) => readFileSync(f, 'utf8')).join('\n');
  const urls = [...readme.matchAll(/curl [^\n]*?'?localhost:4000(\/(?:v1\/)?api\/[^'\s]*)'?/g)].map((m) => m[1]!);
  return [...new Set(urls)];
}
