import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { RunningApp } from '../src/app.js';
import { routes } from '../src/rest/routes.js';
import { expectProblem, getJson, startTestServer, TEST_KEY, type HttpResult } from './helpers/server.js';
import { everyDocumentedPath } from './helpers/paths.js';

/**
 * /openapi.json is checked by a real OpenAPI 3.1 validator, and every route's real answers (200s
 * and each kind of error) are validated against the schema the document gives for that status.
 */

type Json = Record<string, any>;
let app: RunningApp;
let doc: Json;
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);

beforeAll(async () => {
  app = await startTestServer();
  const r = await getJson(app, '/openapi.json', { apiKey: null });
  expect(r.status).toBe(200);
  doc = r.body;
  // The components under an id of their own, so `#/components/schemas/…` references resolve.
  ajv.addSchema({ $id: 'https://ski-zip-gateway.test/openapi.json', components: doc.components }, 'openapi');
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

const validators = new Map<string, ValidateFunction>();
/** The schema of an answer of this status, compiled against the document's components. */
function validatorFor(op: Json, status: number, contentType: string): ValidateFunction {
  const response = op.responses[String(status)];
  expect(response, `status ${status} is documented for ${op.operationId}`).toBeDefined();
  const media = contentType.startsWith('application/problem+json') ? 'application/problem+json' : 'application/json';
  const schema = response.content?.[media]?.schema;
  expect(schema, `${op.operationId} ${status} documents a ${media} body`).toBeDefined();
  const key = `${op.operationId} ${status} ${media}`;
  if (!validators.has(key)) {
    const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"https://ski-zip-gateway.test/openapi.json#/components/'));
    validators.set(key, ajv.compile(rewritten));
  }
  return validators.get(key)!;
}

function expectConforms(template: string, method: string, r: HttpResult) {
  const validate = validatorFor(operationOf(template, method), r.status, r.contentType);
  const ok = validate(r.body);
  expect(ok, `${method} ${template} ${r.status}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
}

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 (checked by an OpenAPI schema validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
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

describe('real answers conform to the document', () => {
  const paths = everyDocumentedPath();

  it.each(paths)('$method $path: the 200 body matches its schema', async ({ method, path }) => {
    const template = routes.find((r) => (r.method ?? 'GET') === method && new RegExp(`^${r.path.replace(/:(\w+)/g, '[^/]+')}$`).test(path.split('?')[0]!))!.path;
    const r = await getJson(app, path, { method });
    expect(r.status).toBe(200);
    expectConforms(template, method, r);
  });

  it('errors match the problem schema of their status: 400, 401, 404', async () => {
    const cases: [string, string, number, string | null][] = [
      ['/api/zip/:zip', '/api/zip/abc', 400, TEST_KEY],
      ['/api/zip/:zip/nearby', '/api/zip/90210/nearby?radiusMiles=900', 400, TEST_KEY],
      ['/api/resorts/:id/history', '/api/resorts/vail/history?days=1', 400, TEST_KEY],
      ['/api/resorts', '/api/resorts?limit=0', 400, TEST_KEY],
      ['/api/zip/:zip', '/api/zip/00000', 404, TEST_KEY],
      ['/api/resorts/:id', '/api/resorts/no-such-resort', 404, TEST_KEY],
      ['/api/zip/:zip', '/api/zip/90210', 401, null],
      ['/api/resorts', '/api/resorts', 401, 'szg_not_a_key'],
    ];
    for (const [template, path, status, apiKey] of cases) {
      const r = await getJson(app, path, { apiKey });
      const body = expectProblem(r, status);
      if (status === 400) expect(body.errors?.[0]).toMatchObject({ name: expect.any(String), bound: expect.any(String) });
      expectConforms(template, 'GET', r);
    }
  });

  it('a 403 for a key without the admin scope, and a 429 past the quota, match too', async () => {
    const limited = await startTestServer({ config: { apiKeys: ['szg_plain_key'], apiAdminKeys: [], apiKeysQuota: 2 } });
    try {
      const forbidden = await getJson(limited, '/api/sync/run', { method: 'POST', apiKey: 'szg_plain_key' });
      expectProblem(forbidden, 403);
      expectConforms('/api/sync/run', 'POST', forbidden);
      // The 403 used one request of the quota of two.
      expect((await getJson(limited, '/api/states', { apiKey: 'szg_plain_key' })).status).toBe(200);
      const tooMany = await getJson(limited, '/api/states', { apiKey: 'szg_plain_key' });
      expectProblem(tooMany, 429);
      expectConforms('/api/states', 'GET', tooMany);
    } finally {
      await limited.close();
    }
  });
});
