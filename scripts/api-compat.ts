import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSchema, type GraphQLSchema, isEnumType, isInputObjectType, isInterfaceType, isObjectType } from 'graphql';
import { diff, CriticalityLevel } from '@graphql-inspector/core';
import { apiCompare } from 'api-smart-diff';
import { nullablesAsTypeArrays } from '../src/transports/rest/nullable-types.js';

/**
 * The change policy (README, "Changing the API"): the GraphQL schema and /openapi.json are
 * compared with their last released copies (schema/released/). A breaking change — a removed or
 * retyped field, argument, path, parameter or response member — fails CI unless
 * 1. CHANGELOG.md's "Unreleased" section has an entry naming it in backticks and saying
 *    "deprecated since <version>", a version the CHANGELOG lists as released, and
 * 2. where the element can carry a deprecation (a GraphQL field, argument, input field or enum
 *    value; an OpenAPI operation or parameter), the released copy already marked it deprecated:
 *    clients were told for at least one release before it went.
 */

export interface BreakingChange {
  api: 'graphql' | 'openapi';
  /** What a CHANGELOG entry names: `Zip.county`, `GET /api/stats`, `GET /api/zip/{zip}/nearby limit`. */
  coordinate: string;
  message: string;
  /** Whether the released copy marked this element deprecated (null: it cannot carry a deprecation). */
  deprecatedInRelease: boolean | null;
}

export async function graphqlBreakingChanges(releasedSdl: string, currentSdl: string): Promise<BreakingChange[]> {
  const released = buildSchema(releasedSdl);
  const changes = await diff(released, buildSchema(currentSdl));
  return changes
    .filter((c) => c.criticality.level === CriticalityLevel.Breaking)
    .map((c) => {
      const coordinate = c.path ?? c.message;
      return { api: 'graphql' as const, coordinate, message: c.message, deprecatedInRelease: graphqlDeprecation(released, coordinate) };
    });
}

/** Whether `Type.field`, `Type.field.arg` or `Enum.VALUE` is deprecated in the schema (null when it cannot be). */
function graphqlDeprecation(schema: GraphQLSchema, coordinate: string): boolean | null {
  const [typeName, member, argument] = coordinate.split('.');
  const type = schema.getType(typeName!);
  if (!type || !member) return null;
  if (isEnumType(type)) {
    const value = type.getValue(member);
    return value ? value.deprecationReason != null : null;
  }
  if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
    const field = type.getFields()[member];
    if (!field) return null;
    if (!argument) return field.deprecationReason != null;
    const arg = 'args' in field ? field.args.find((a) => a.name === argument) : undefined;
    return arg ? arg.deprecationReason != null : null;
  }
  return null;
}

type Json = Record<string, unknown>;
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

export function openApiBreakingChanges(released: Json, current: Json): BreakingChange[] {
  // One form for nullables in both copies: the diff tool reads `anyOf: [x, null]` turned into
  // `type: [x, 'null']` (the same schema) as a type replaced and a member removed.
  const normal = (doc: Json) => {
    const copy = structuredClone(doc);
    nullablesAsTypeArrays(copy);
    return copy;
  };
  const { diffs } = apiCompare(normal(released), normal(current));
  const changes = new Map<string, BreakingChange>();
  const answersOnly = responseOnlySchemas(current);
  for (const d of diffs) {
    if (d.type !== 'breaking') continue;
    const at = d.path.map(String);
    // A member added to a schema only answers use is a new field of the answer: the diff tool
    // cannot tell (the schemas are strict objects), but a client that reads the old fields reads
    // them still. What a request takes is judged as the tool says.
    if (d.action === 'add' && at[0] === 'components' && at[1] === 'schemas' && answersOnly.has(at[2]!)) continue;
    // HEAD is its GET without the body: a change to both is one change, named by the GET.
    const coordinate = openApiCoordinate(released, at).replace(/^HEAD /, 'GET ');
    if (!changes.has(coordinate))
      changes.set(coordinate, {
        api: 'openapi',
        coordinate,
        message: d.description ?? `${d.action} at ${at.join('/')}`,
        deprecatedInRelease: openApiDeprecation(released, at),
      });
  }
  return [...changes.values()];
}

/** The component schemas answers reach (directly or through others) and nothing a request sends does. */
function responseOnlySchemas(doc: Json): Set<string> {
  const schemas = ((doc.components as Json | undefined)?.schemas ?? {}) as Json;
  const refsIn = (value: unknown) => [...JSON.stringify(value ?? null).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
  /** Every schema reachable from `value` through references. */
  const reach = (value: unknown): Set<string> => {
    const seen = new Set<string>();
    const stack = refsIn(value);
    while (stack.length > 0) {
      const name = stack.pop()!;
      if (seen.has(name)) continue;
      seen.add(name);
      stack.push(...refsIn(schemas[name]));
    }
    return seen;
  };
  const answers: unknown[] = [];
  const requests: unknown[] = [];
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const { responses, ...rest } = op as Json;
      answers.push(responses);
      requests.push(rest);
    }
  }
  const sent = reach(requests);
  return new Set([...reach(answers)].filter((name) => !sent.has(name)));
}

/** `GET /api/zip/{zip}/nearby`, with the parameter's name when the change is in one. */
function openApiCoordinate(doc: Json, at: string[]): string {
  if (at[0] !== 'paths' || !at[1]) return at.join('/');
  if (!at[2] || !METHODS.has(at[2])) return at[1];
  const operation = `${at[2].toUpperCase()} ${at[1]}`;
  if (at[3] === 'parameters' && at[4] !== undefined) {
    const parameter = (((doc.paths as Json)[at[1]] as Json)[at[2]] as { parameters?: { name: string }[] }).parameters?.[Number(at[4])];
    if (parameter) return `${operation} ${parameter.name}`;
  }
  return operation;
}

/** Whether the released operation (or the parameter the change is in) was marked deprecated. */
function openApiDeprecation(doc: Json, at: string[]): boolean | null {
  if (at[0] !== 'paths' || !at[2] || !METHODS.has(at[2])) return null;
  const operation = ((doc.paths as Json)[at[1]!] as Json | undefined)?.[at[2]] as { deprecated?: boolean; parameters?: { deprecated?: boolean }[] } | undefined;
  if (!operation) return null;
  if (at[3] === 'parameters' && at[4] !== undefined) return operation.parameters?.[Number(at[4])]?.deprecated === true || operation.deprecated === true;
  return operation.deprecated === true;
}

/** The released versions (headings `## 1.0.0 …`) and the entries of the "Unreleased" section. */
export function readChangelog(text: string): { released: Set<string>; unreleased: string[] } {
  const released = new Set<string>();
  const unreleased: string[] = [];
  let section: string | null = null;
  // Examples inside HTML comments are not entries.
  for (const line of text.replace(/<!--[\s\S]*?-->/g, '').split('\n')) {
    const heading = /^##\s+(\S+)/.exec(line);
    if (heading) {
      section = heading[1]!;
      if (/^\d+\.\d+\.\d+$/.test(section)) released.add(section);
      continue;
    }
    if (section?.toLowerCase() === 'unreleased' && /^\s*[-*]\s/.test(line)) unreleased.push(line);
  }
  return { released, unreleased };
}

export interface Verdict {
  change: BreakingChange;
  allowed: boolean;
  why: string;
}

/** Each breaking change, allowed or not under the policy, and why. */
export function judge(changes: readonly BreakingChange[], changelog: string): Verdict[] {
  const { released, unreleased } = readChangelog(changelog);
  return changes.map((change) => {
    const entry = unreleased.find((line) => line.includes(`\`${change.coordinate}\``));
    if (!entry) return { change, allowed: false, why: `no CHANGELOG.md entry under "Unreleased" names \`${change.coordinate}\`` };
    const since = /deprecated since (\d+\.\d+\.\d+)/i.exec(entry)?.[1];
    if (!since || !released.has(since)) return { change, allowed: false, why: `its CHANGELOG.md entry does not say "deprecated since <a released version>"` };
    if (change.deprecatedInRelease === false)
      return { change, allowed: false, why: `the released copy did not mark it deprecated: deprecate it in one release, remove it in a later one` };
    return { change, allowed: true, why: `recorded: ${entry.trim()}` };
  });
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FILES = {
  sdl: 'schema/schema.graphql',
  openapi: 'schema/openapi.json',
  releasedSdl: 'schema/released/schema.graphql',
  releasedOpenapi: 'schema/released/openapi.json',
  changelog: 'CHANGELOG.md',
};
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The committed schema and document against the released copies, judged by the CHANGELOG. */
export async function checkRepository(): Promise<Verdict[]> {
  const changes = [
    ...(await graphqlBreakingChanges(read(FILES.releasedSdl), read(FILES.sdl))),
    ...openApiBreakingChanges(JSON.parse(read(FILES.releasedOpenapi)), JSON.parse(read(FILES.openapi))),
  ];
  return judge(changes, read(FILES.changelog));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--release') {
    // After a release: its schema and document become what the next changes are compared with.
    copyFileSync(path.join(ROOT, FILES.sdl), path.join(ROOT, FILES.releasedSdl));
    copyFileSync(path.join(ROOT, FILES.openapi), path.join(ROOT, FILES.releasedOpenapi));
    console.log(`copied ${FILES.sdl} and ${FILES.openapi} to schema/released/`);
  } else {
    const verdicts = await checkRepository();
    for (const v of verdicts) console.log(`${v.allowed ? 'allowed' : 'BREAKING'} ${v.change.api} \`${v.change.coordinate}\`: ${v.change.message} (${v.why})`);
    const refused = verdicts.filter((v) => !v.allowed).length;
    console.log(
      refused === 0
        ? `API compatible with the last release (${verdicts.length} recorded breaking changes)`
        : `${refused} breaking change(s) not recorded: see README, "Changing the API"`,
    );
    process.exitCode = refused === 0 ? 0 : 1;
  }
}
