import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkRepository, graphqlBreakingChanges, judge, openApiBreakingChanges, readChangelog } from '../../scripts/api-compat.js';

/**
 * The change policy CI enforces (npm run api:compat): a breaking change to the GraphQL schema or
 * /openapi.json passes only when the CHANGELOG records it and the released copy had deprecated it.
 * Changes are made to the real committed schema and document.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const sdl = readFileSync(path.join(ROOT, 'schema', 'schema.graphql'), 'utf8');
const openapi = JSON.parse(readFileSync(path.join(ROOT, 'schema', 'openapi.json'), 'utf8'));
const COUNTY_DOC = '  """County name as GeoNames gives it (without "County")."""\n';
const COUNTY = `${COUNTY_DOC}  county: String! @cost(weight: "1")\n`;
const changelog = (...entries: string[]) => `# Changelog\n\n## Unreleased\n\n${entries.map((e) => `- ${e}\n`).join('')}\n## 1.0.0 — 2026-11-25\n\nFirst.\n`;
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));
/** The real document cut to the two ZIP paths these cases change (comparing all of it takes seconds). */
const zipPart = () => {
  const part = clone(openapi);
  part.paths = { '/api/stats': part.paths['/api/stats'], '/api/zip/{zip}/nearby': part.paths['/api/zip/{zip}/nearby'] };
  return part;
};

describe('API change policy', () => {
  it('the committed schema and /openapi.json have no unrecorded breaking change against the release', async () => {
    const refused = (await checkRepository()).filter((v) => !v.allowed);
    expect(refused).toEqual([]);
  });

  it('removing a GraphQL field fails, naming it', async () => {
    expect(sdl).toContain(COUNTY);
    const changes = await graphqlBreakingChanges(sdl, sdl.replace(COUNTY, ''));
    expect(changes.map((c) => c.coordinate)).toEqual(['Zip.county']);
    const [verdict] = judge(changes, changelog());
    expect(verdict!.allowed).toBe(false);
    expect(verdict!.why).toMatch(/no CHANGELOG.md entry .*`Zip.county`/);
  });

  it('a removal passes once it was deprecated in the release and the CHANGELOG records it with its deprecation', async () => {
    const released = sdl.replace(COUNTY, `${COUNTY_DOC}  county: String! @cost(weight: "1") @deprecated(reason: "Use countyName.")\n`);
    const changes = await graphqlBreakingChanges(released, sdl.replace(COUNTY, ''));
    expect(judge(changes, changelog('`Zip.county` removed: use `Zip.countyName` (deprecated since 1.0.0).'))[0]!.allowed).toBe(true);
    // Without a released version in the entry, or naming a version never released: refused.
    expect(judge(changes, changelog('`Zip.county` removed.'))[0]!.allowed).toBe(false);
    expect(judge(changes, changelog('`Zip.county` removed (deprecated since 0.9.0).'))[0]!.allowed).toBe(false);
    // Recorded, but the release never told clients: refused.
    const undeclared = await graphqlBreakingChanges(sdl, sdl.replace(COUNTY, ''));
    const verdict = judge(undeclared, changelog('`Zip.county` removed (deprecated since 1.0.0).'))[0]!;
    expect(verdict.allowed).toBe(false);
    expect(verdict.why).toMatch(/did not mark it deprecated/);
  });

  it('retyping a field is breaking; adding a field is not', async () => {
    expect((await graphqlBreakingChanges(sdl, sdl.replace(COUNTY, `${COUNTY_DOC}  county: String @cost(weight: "1")\n`))).map((c) => c.coordinate)).toEqual([
      'Zip.county',
    ]);
    expect(await graphqlBreakingChanges(sdl, sdl.replace(COUNTY, `${COUNTY}  countyName: String\n`))).toEqual([]);
  });

  it('removing a REST path or making a parameter required fails, naming the operation and parameter', () => {
    const released = zipPart();
    const changed = zipPart();
    delete changed.paths['/api/stats'];
    const limit = changed.paths['/api/zip/{zip}/nearby'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    limit.required = true;
    const changes = openApiBreakingChanges(released, changed);
    expect(changes.map((c) => c.coordinate).sort()).toEqual(['GET /api/stats', 'GET /api/zip/{zip}/nearby limit']);
    expect(judge(changes, changelog()).every((v) => !v.allowed)).toBe(true);
  });

  it('a member added to an answer is not breaking; one removed from it is', () => {
    const released = zipPart();
    const added = clone(released);
    const nearby = added.components.schemas.Nearby;
    nearby.properties.unit = { type: 'string' };
    nearby.required.push('unit');
    expect(openApiBreakingChanges(released, added)).toEqual([]);
    const removed = clone(released);
    delete removed.components.schemas.Nearby.properties.radiusMiles;
    removed.components.schemas.Nearby.required = removed.components.schemas.Nearby.required.filter((n: string) => n !== 'radiusMiles');
    expect(openApiBreakingChanges(released, removed).length).toBeGreaterThan(0);
  });

  it('a nullable written as anyOf [x, null] in the release and as type [x, "null"] now is the same schema; null taken away is breaking', () => {
    const released = zipPart();
    const nearby = released.components.schemas.Nearby.properties;
    nearby.radiusMiles = { anyOf: [{ type: 'number', minimum: 0 }, { type: 'null' }] };
    const rewritten = clone(released);
    rewritten.components.schemas.Nearby.properties.radiusMiles = { type: ['number', 'null'], minimum: 0 };
    expect(openApiBreakingChanges(released, rewritten)).toEqual([]);
    const notNull = clone(released);
    notNull.components.schemas.Nearby.properties.radiusMiles = { type: 'number', minimum: 0 };
    expect(openApiBreakingChanges(released, notNull).length).toBeGreaterThan(0);
  });

  it('a REST path deprecated in the release and recorded may go', () => {
    const released = zipPart();
    released.paths['/api/stats'].get.deprecated = true;
    released.paths['/api/stats'].head.deprecated = true;
    const current = zipPart();
    delete current.paths['/api/stats'];
    const changes = openApiBreakingChanges(released, current);
    expect(changes.map((c) => c.coordinate)).toEqual(['GET /api/stats']);
    expect(judge(changes, changelog('`GET /api/stats` removed (deprecated since 1.0.0).'))[0]!.allowed).toBe(true);
    expect(judge(openApiBreakingChanges(zipPart(), current), changelog('`GET /api/stats` removed (deprecated since 1.0.0).'))[0]!.allowed).toBe(false);
  });

  it('reads released versions and Unreleased entries, not examples in comments', () => {
    const { released, unreleased } = readChangelog(
      `## Unreleased\n<!--\n- \`Zip.county\` removed (deprecated since 1.0.0).\n-->\n- real\n## 1.0.0 — 2026-11-25\n- old\n`,
    );
    expect([...released]).toEqual(['1.0.0']);
    expect(unreleased).toEqual(['- real']);
  });
});
