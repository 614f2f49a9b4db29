import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { routes } from '../../src/transports/rest/routes.js';
import { validate } from '../../src/validation/validate.js';
import { checkDocument } from '../../src/operation/pipeline.js';
import { schema } from '../../src/graphql/schema.js';

/**
 * Each documented path's `shape`: from its GraphQL operation's real data to the body the server
 * answered with (test/fixtures/rest-shapes, recorded by scripts/record-rest-shapes.ts from a
 * server on a fixed clock). The HTTP tests check the same bodies against /openapi.json and
 * GraphQL; here the shapes run alone, so mutation testing covers them too.
 */
const DIR = path.join(import.meta.dirname, '..', 'fixtures', 'rest-shapes');
const fixtures = readdirSync(DIR).map(
  (f) =>
    JSON.parse(readFileSync(path.join(DIR, f), 'utf8')) as {
      path: string;
      request: string;
      params: Record<string, string>;
      variables: Record<string, unknown>;
      data: never;
      body: unknown;
    },
);

describe('REST shapes', () => {
  // The server trusts these operations without validating them at start (the pipeline's steps
  // skip documents of its own): here is where they are validated, with the pipeline's own rules
  // (armor's limits and introspection off included).
  it("every route's operation passes the pipeline's document rules", async () => {
    const checked = await Promise.all(
      routes.map(async (r) => ({ path: r.path, errors: (await checkDocument(schema, r.operation, false)).map((e) => e.message) })),
    );
    const invalid = checked.filter((r) => r.errors.length > 0);
    expect(routes.length).toBeGreaterThan(20);
    expect(invalid).toEqual([]);
  });

  it('every GET path has a recorded answer', () => {
    expect(fixtures.map((f) => f.path).sort()).toEqual(
      routes
        .filter((r) => r.method !== 'POST')
        .map((r) => r.path)
        .sort(),
    );
  });

  for (const f of fixtures) {
    it(`${f.request}: its variables, and the operation's data shaped into the documented body`, () => {
      const route = routes.find((r) => r.path === f.path && r.method !== 'POST')!;
      const params = validate(route.params, f.params);
      // The operation's variables from the parameters, as the router passes them.
      expect(JSON.parse(JSON.stringify(route.variables ? route.variables(params) : params))).toEqual(f.variables);
      const body = route.shape(f.data, params);
      // As sent: through JSON, so undefined members vanish as they do on the wire.
      expect(JSON.parse(JSON.stringify(body))).toEqual(f.body);
      expect(route.response.safeParse(body).success).toBe(true);
    });
  }

  it("a resort's lifts say where they come from: the lifts' own source (Liftie), else the inventory's (no lifts at all too)", () => {
    const f = fixtures.find((x) => x.path === '/api/resorts/:id/lifts')!;
    const route = routes.find((r) => r.path === f.path)!;
    const params = validate(route.params, f.params);
    const data = f.data as { resort: { lifts: { source: string }[]; inventorySource: string } };
    const withSource = (lifts: { source: string }[], inventorySource: string) =>
      route.shape({ resort: { ...data.resort, lifts, inventorySource } } as never, params) as { source: string };
    expect(
      withSource(
        data.resort.lifts.map((l) => ({ ...l, source: 'liftie' })),
        'generated',
      ).source,
    ).toBe('liftie');
    expect(withSource([], 'imported').source).toBe('imported');
  });
});
