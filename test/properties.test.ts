import fc from 'fast-check';
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { routes } from '../src/transports/rest/routes.js';
import { schema } from '../src/graphql/schema.js';
import { startTestServer, TEST_KEY } from './helpers/server.js';
import { connect } from 'node:net';

/**
 * Property tests: whatever a client sends to any documented path or GraphQL argument, the answer
 * is never a 5xx, never a hang, and every 4xx is problem+json (or a GraphQL error with a code).
 */

let app: RunningApp;
beforeAll(async () => {
  app = await startTestServer({ privateDb: true });
});
afterAll(() => app.close());

const RUNS = 40;

/** Values a hostile or careless client might send as a query-string or path value. */
const wildString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom(
    '',
    ' ',
    '-0',
    '0x10',
    '1e309',
    '-1e309',
    'NaN',
    'Infinity',
    '9'.repeat(40),
    '%',
    '%00',
    '..',
    '../..',
    "' OR 1=1 --",
    '<script>',
    '\u0000',
    '90210',
    'CA',
    'vail',
    'METRIC',
    'imperial',
    '200',
    '201',
    '0',
    '1',
    '-1',
    '60',
    '61',
    '100',
    '50.5',
  ),
  fc.string({ maxLength: 300 }),
);

async function call(path: string, init: RequestInit = {}): Promise<{ status: number; type: string; body: string }> {
  const res = await fetch(app.url + path, { ...init, headers: { 'x-api-key': TEST_KEY, ...init.headers }, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
}

/** A GET whose request target is exactly these bytes, on a socket of its own; the answer parsed by hand. */
function rawGet(target: Buffer): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(app.url);
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer in 10 s')));
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const head = text.slice(0, text.indexOf('\r\n\r\n'));
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      if (!status) return reject(new Error(`not an HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
      const type = /^content-type: *(.*)$/im.exec(head)?.[1]?.trim() ?? '';
      resolve({ status, type, body: text.slice(head.length + 4) });
    });
    socket.write(
      Buffer.concat([Buffer.from('GET '), target, Buffer.from(` HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${TEST_KEY}\r\nconnection: close\r\n\r\n`)]),
    );
  });
}

function expectSaneRest(r: { status: number; type: string; body: string }, what: string) {
  expect(r.status, what).toBeLessThan(500);
  if (r.status >= 400) {
    expect(r.type, what).toMatch(/^application\/problem\+json/);
    const p = JSON.parse(r.body);
    expect(p.status, what).toBe(r.status);
    expect(typeof p.detail, what).toBe('string');
  } else {
    expect(r.type, what).toMatch(/^application\/json/);
    JSON.parse(r.body);
  }
  expect(r.body, what).not.toMatch(/\bat .+\.(ts|js):\d+|SQLITE_|node_modules/);
}

describe('REST: any value of any parameter of any documented path', () => {
  for (const route of routes) {
    const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
    const shape = (route.params as unknown as z.ZodObject).shape as Record<string, unknown>;
    const queryParams = Object.keys(shape).filter((k) => !pathParams.includes(k));

    it(`${route.path} (${[...pathParams, ...queryParams].join(', ') || 'no parameters'})`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.record(Object.fromEntries(pathParams.map((p) => [p, wildString]))),
          fc.dictionary(fc.constantFrom(...queryParams, 'unknown', 'limit'), fc.oneof(wildString, fc.array(wildString, { minLength: 2, maxLength: 3 })), {
            maxKeys: 4,
          }),
          fc.constantFrom('', '/v1'),
          async (pathValues, query, prefix) => {
            const path = route.path.replace(/:(\w+)/g, (_, n: string) => encodeURIComponent(pathValues[n] as string));
            const qs = new URLSearchParams();
            for (const [k, v] of Object.entries(query)) for (const x of Array.isArray(v) ? v : [v]) qs.append(k, x);
            const url = `${prefix}${path}${qs.size ? `?${qs}` : ''}`;
            expectSaneRest(await call(url, { method: route.method ?? 'GET' }), url);
          },
        ),
        { numRuns: RUNS },
      );
    });
  }

  it('raw, unencoded and malformed paths, sent as bytes on the wire', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/api/zip/', '/api/city/', '/api/resorts/', '/api/states/', '/v1/api/resorts/', '/', ''),
        // Any bytes but CR and LF (which would end the request line and start another request).
        fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes.filter((b) => b !== 13 && b !== 10))),
        async (base, tail) => {
          const target = Buffer.concat([Buffer.from(base, 'latin1'), tail]);
          expectSaneRest(await rawGet(target), JSON.stringify(target.toString('latin1')));
        },
      ),
      { numRuns: RUNS * 3 },
    );
  });
});

/** An arbitrary value for a GraphQL input type, valid or not. */
function arbitraryFor(type: GraphQLInputType): fc.Arbitrary<unknown> {
  const inner = getNullableType(type);
  const named = getNamedType(type);
  if (isListType(inner)) return fc.array(arbitraryFor(inner.ofType), { maxLength: 3 });
  if (isEnumType(named)) return fc.oneof(fc.constantFrom(...named.getValues().map((v) => v.name)), fc.string({ maxLength: 10 }));
  if (isInputObjectType(named)) {
    const fields = Object.values(named.getFields());
    return fc.record(Object.fromEntries(fields.map((f) => [f.name, fc.option(arbitraryFor(f.type), { nil: null })])), { requiredKeys: [] });
  }
  if (isScalarType(named)) {
    switch (named.name) {
      case 'Int':
        return fc.oneof(fc.integer({ min: -5, max: 300 }), fc.integer(), fc.constantFrom(0, 1, 50, 51, 60, 61, 200, 201, 1000, 1001, 2 ** 31 - 1));
      case 'Float':
        return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.double({ min: -1, max: 600, noNaN: true }));
      default:
        return wildString;
    }
  }
  return fc.constant(null);
}

const gqlTypeName = (t: GraphQLInputType) => String(t);

interface Case {
  name: string;
  field: GraphQLField<unknown, unknown>;
  wrap: (inner: string) => string;
}

/** Every field with arguments: on Query directly, and on Zip, State and Resort through a known record. */
function fieldsWithArguments(): Case[] {
  const cases: Case[] = [];
  const roots: [string, (s: string) => string][] = [
    ['Query', (s) => s],
    ['Zip', (s) => `zip(zip: "81657") { ${s} }`],
    ['State', (s) => `state(code: "VT") { ${s} }`],
    ['Resort', (s) => `resort(id: "vail") { ${s} }`],
  ];
  for (const [typeName, wrap] of roots) {
    const type = schema.getType(typeName) as unknown as { getFields(): Record<string, GraphQLField<unknown, unknown>> };
    for (const field of Object.values(type.getFields())) {
      if (field.args.length > 0) cases.push({ name: `${typeName}.${field.name}`, field, wrap });
    }
  }
  return cases;
}

function selectionFor(field: GraphQLField<unknown, unknown>): string {
  const named = getNamedType(field.type);
  return isScalarType(named) || isEnumType(named) ? '' : '{ __typename }';
}

describe('GraphQL: any value of any argument', () => {
  const cases = fieldsWithArguments();

  it('covers the documented arguments', () => {
    const names = cases.map((c) => c.name);
    for (const n of [
      'Query.zip',
      'Query.nearbyZips',
      'Query.city',
      'Query.resorts',
      'Query.compareResorts',
      'Query.topSnow',
      'Query.openNow',
      'Query.stormWatch',
      'Query.snowInsights',
      'Zip.nearby',
      'Zip.nearbyResorts',
      'State.zipcodes',
      'Resort.nearbyZips',
      'Resort.conditions',
    ]) {
      expect(names).toContain(n);
    }
  });

  for (const c of cases) {
    it(c.name, async () => {
      const args: readonly GraphQLArgument[] = c.field.args;
      const vars = args.map((a) => `$${a.name}: ${gqlTypeName(a.type)}`).join(', ');
      const call_ = `${c.field.name}(${args.map((a) => `${a.name}: $${a.name}`).join(', ')}) ${selectionFor(c.field)}`;
      const query = `query Probe(${vars}) { ${c.wrap(call_)} }`;
      await fc.assert(
        fc.asyncProperty(fc.record(Object.fromEntries(args.map((a) => [a.name, arbitraryFor(a.type)]))), async (variables) => {
          const r = await call('/graphql', {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
            body: JSON.stringify({ query, variables }),
          });
          const what = `${c.name} ${JSON.stringify(variables)}`;
          expect(r.status, what).toBeLessThan(500);
          const body = JSON.parse(r.body) as { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] };
          expect(body.data !== undefined || body.errors !== undefined, what).toBe(true);
          for (const e of body.errors ?? []) {
            expect(e.extensions?.code, `${what}: ${e.message}`).toBeTruthy();
            expect(e.extensions?.code, `${what}: ${e.message}`).not.toBe('INTERNAL_SERVER_ERROR');
          }
          expect(r.body, what).not.toMatch(/\bat .+\.(ts|js):\d+|SQLITE_|node_modules/);
        }),
        { numRuns: RUNS },
      );
    });
  }
});
