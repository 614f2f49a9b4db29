import { buildSchema, GraphQLError, Kind, parse, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { outcomeOf } from '../../src/transports/mcp/calls.js';
import { inputSchemaOf, outputSchemaOf, type JsonSchema } from '../../src/transports/mcp/json-schema.js';
import { getPrompt, PROMPTS } from '../../src/transports/mcp/prompts.js';
import { documentList, readerOf, targetOf, templates } from '../../src/transports/mcp/resources.js';
import { toolResult } from '../../src/transports/mcp/session.js';
import { toolName, toolsFor, toolsOf } from '../../src/transports/mcp/tools.js';

/**
 * What MCP's tools, resources and prompt are made of, called directly: the JSON Schemas derived
 * from GraphQL operations (json-schema.ts: the service's schema, and a small one of the shapes it
 * lacks), the tools made from operation files, resource URIs, the prompt and a call's outcome as a
 * tool result. The server builds its tools once, at load; here each derivation runs in a test.
 */

const schemasOf = (on: GraphQLSchema, text: string) => {
  const document = parse(text);
  const definition = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  return { input: inputSchemaOf(on, document, definition), output: outputSchemaOf(on, document, definition) };
};

/** The shapes the service's schema does not have: a scalar without a JSON type, an interface, a recursive input, no mutation root. */
const SHAPES = buildSchema(`
  scalar Json
  enum Colour { RED GREEN }
  interface Place { name: String! }
  type Town implements Place { name: String! population: Int! colour: Colour extra: Json tags: [String] area: Float! }
  input Tree { label: String! size: Int! = 3 note: String child: Tree }
  type Query {
    town(tree: Tree, ids: [ID!]): Town
    place: Place
    towns: [Town!]!
  }
`);

describe('inputSchemaOf: an operation’s variables as JSON Schema', () => {
  it('each variable’s type with the bounds and description of the argument it feeds; a required one without a default is required', () => {
    const { input } = schemasOf(
      schema,
      'query Q($codes: [String!]!, $name: String!, $state: String, $units: Units = METRIC, $unused: Float!) { zips(codes: $codes) { zip } city(name: $name, state: $state) { city } c2: city(name: $state) { city } resort(id: "vail") { conditions(units: $units) { status } } }',
    );
    expect(input).toEqual({
      type: 'object',
      properties: {
        // A list's item bounds go to its items, the list's own to the list.
        codes: {
          type: 'array',
          items: { type: 'string', pattern: '^\\d{5}$' },
          minItems: 1,
          maxItems: 100,
          description: '1–100 codes of exactly 5 digits (a copy counts once).',
        },
        name: { type: 'string', minLength: 1, maxLength: 100, description: '1–100 characters.' },
        // Its first use names its bounds (city's state), not its second (city's name).
        state: { type: 'string', pattern: '^[A-Za-z]{2}$', description: expect.stringMatching(/state/i) },
        units: { type: 'string', enum: ['METRIC', 'IMPERIAL'], description: expect.any(String) },
        // A variable no argument takes: its type alone.
        unused: { type: 'number' },
      },
      required: ['codes', 'name', 'unused'],
      additionalProperties: false,
    });
  });

  it('an operation without variables takes none; a variable of an unknown type is left out', () => {
    expect(schemasOf(schema, '{ health { status } }').input).toEqual({ type: 'object', properties: {}, required: [], additionalProperties: false });
    expect(schemasOf(schema, 'query Q($x: NoSuchType, $n: Int) { health { status } }').input).toEqual({
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: [],
      additionalProperties: false,
    });
  });

  it('an input object: its fields, those non-null without a default required, no others; nested five levels, then any object', () => {
    const { input } = schemasOf(SHAPES, 'query Q($tree: Tree!, $ids: [ID!]) { town(tree: $tree, ids: $ids) { name } }');
    let tree = (input.properties as Record<string, JsonSchema>).tree!;
    for (let depth = 0; depth <= 4; depth++) {
      expect(tree, `depth ${depth}`).toMatchObject({
        type: 'object',
        properties: { label: { type: 'string' }, size: { type: 'integer' }, note: { type: 'string' } },
        required: ['label'],
        additionalProperties: false,
      });
      tree = (tree.properties as Record<string, JsonSchema>).child!;
    }
    expect(tree).toEqual({ type: 'object' });
    expect((input.properties as Record<string, JsonSchema>).ids).toEqual({ type: 'array', items: { type: 'string' } });
    expect(input.required).toEqual(['tree']);
  });

  it('a default value makes a non-null variable optional', () => {
    expect(schemasOf(schema, 'query Q($zip: String! = "05401") { zip(zip: $zip) { city } }').input).toMatchObject({
      properties: { zip: { type: 'string', pattern: '^\\d{5}$' } },
      required: [],
    });
  });
});

describe('outputSchemaOf: the data an operation selects as JSON Schema', () => {
  it('fields with their types, nullability and descriptions; aliases; __typename; enums and lists that may be null', () => {
    const { output } = schemasOf(schema, '{ kind: __typename zips(codes: ["05401"]) { zip } sync: syncStatus { state } }');
    expect(output).toEqual({
      type: 'object',
      properties: {
        kind: { type: 'string' },
        zips: {
          type: 'array',
          items: { type: ['object', 'null'], properties: { zip: { type: 'string', description: 'Five-digit ZIP code.' } }, required: ['zip'] },
          description: expect.any(String),
        },
        sync: expect.objectContaining({
          type: ['object', 'null'],
          properties: { state: expect.objectContaining({ type: 'string', enum: expect.arrayContaining(['IDLE', 'RUNNING']) }) },
        }),
      },
      required: ['kind', 'zips', 'sync'],
    });
  });

  it('a nullable enum admits null among its values; a nullable type without one JSON type is anyOf it or null', () => {
    const { output } = schemasOf(SHAPES, '{ town { colour extra tags population } }');
    expect((output.properties as Record<string, JsonSchema>).town).toEqual({
      type: ['object', 'null'],
      properties: {
        colour: { type: ['string', 'null'], enum: ['RED', 'GREEN', null] },
        extra: { anyOf: [{}, { type: 'null' }] },
        tags: { type: ['array', 'null'], items: { type: ['string', 'null'] } },
        population: { type: 'integer' },
      },
      required: ['colour', 'extra', 'tags', 'population'],
    });
  });

  it('fragments read in place: under the parent’s own type required, under another type, a directive or a missing fragment optional', () => {
    const { output } = schemasOf(
      SHAPES,
      `{ towns { ...Own ... on Town { population } ... on Place { name } ... @include(if: true) { colour } tags @skip(if: false) ...Missing ...OnPlace nope ... { area } } place }
       fragment Own on Town { extra }
       fragment OnPlace on Place { name }`,
    );
    const town = (output.properties as Record<string, JsonSchema>).towns!;
    expect(town).toEqual({
      type: 'array',
      items: {
        type: 'object',
        properties: {
          extra: { anyOf: [{}, { type: 'null' }] },
          population: { type: 'integer' },
          name: { type: 'string' },
          colour: { type: ['string', 'null'], enum: ['RED', 'GREEN', null] },
          tags: { type: ['array', 'null'], items: { type: ['string', 'null'] } },
          area: { type: 'number' },
        },
        // An inline fragment without a type condition is the parent's own type.
        required: ['extra', 'population', 'area'],
      },
    });
    // A field of an interface type: any object (or null).
    expect((output.properties as Record<string, JsonSchema>).place).toEqual({ type: ['object', 'null'] });
    expect(output.required).toEqual(['towns', 'place']);
  });

  it('an object selected without fields is any object; an operation whose root the schema lacks is any object', () => {
    expect(schemasOf(schema, '{ health }').output).toEqual({
      type: 'object',
      properties: { health: { type: ['object', 'null'], description: expect.any(String) } },
      required: ['health'],
    });
    expect(schemasOf(SHAPES, 'mutation { town }').output).toEqual({ type: 'object' });
  });
});

describe('toolsOf: one tool per operation file', () => {
  const op = (text: string, file = 'x.graphql') => ({ file, description: `the ${file}`, text });

  it('the service’s operations: names in snake_case, schemas with the REST parameters’ bounds, scopes, read-only queries', () => {
    const tools = toolsOf(schema);
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('zip_lookup')).toMatchObject({
      operationName: 'ZipLookup',
      inputSchema: { properties: { zip: { type: 'string', pattern: '^\\d{5}$' } }, required: ['zip'], additionalProperties: false },
      outputSchema: { properties: { zip: { type: ['object', 'null'], properties: { city: { type: 'string' } } } } },
      scope: null,
      readOnly: true,
    });
    expect(byName.get('nearby_zips')!.inputSchema.properties).toMatchObject({
      radiusMiles: { type: 'number', exclusiveMinimum: 0, maximum: 200 },
      limit: { type: 'integer', minimum: 1, maximum: 200 },
    });
    expect(byName.get('zips_near_point')!.inputSchema).toMatchObject({ properties: { lat: { minimum: -90, maximum: 90 } }, required: ['lat', 'lng'] });
    expect(byName.get('resort_conditions')!.inputSchema).toMatchObject({ properties: { units: { enum: ['METRIC', 'IMPERIAL'] } }, required: ['id'] });
    expect(byName.get('run_sync')).toMatchObject({ scope: 'admin', readOnly: false, inputSchema: { properties: {}, required: [] } });
    expect(toolsFor(tools, '').map((t) => t.name)).not.toContain('run_sync');
    expect(toolsFor(tools, 'admin').map((t) => t.name)).toContain('run_sync');
  });

  it('a file must hold exactly one named query or mutation; two tools may not share a name', () => {
    const refused = /^x\.graphql: a tool's file holds exactly one named query or mutation$/;
    expect(() => toolsOf(schema, [op('{ health { status } }')])).toThrow(refused);
    expect(() => toolsOf(schema, [op('subscription Live { syncProgress { state } }')])).toThrow(refused);
    expect(() => toolsOf(schema, [op('query A { health { status } } query B { health { status } }')])).toThrow(refused);
    expect(() => toolsOf(schema, [op('query Health { health { status } }', 'a.graphql'), op('query Health { health { status } }', 'b.graphql')])).toThrow(
      /^two MCP operations have the same name$/,
    );
    // A fragment beside the operation is not a second one; a spread at the root is no field needing a scope.
    const [tool] = toolsOf(schema, [op('query StatusNow { ...S } fragment S on Query { health { status } }')]);
    expect(tool).toMatchObject({ name: 'status_now', description: 'the x.graphql', scope: null, readOnly: true });
    expect(toolName('ZipLookup2Now')).toBe('zip_lookup2_now');
    // A spread named as a root field that needs a scope is no field; a root field the schema lacks, or a root type it lacks, needs none.
    expect(toolsOf(schema, [op('mutation Spread { ...runSync } fragment runSync on Mutation { __typename }')])[0]!.scope).toBeNull();
    expect(toolsOf(schema, [op('query Nope { nope }')])[0]!.scope).toBeNull();
    expect(toolsOf(SHAPES, [op('mutation Change { town }')])[0]).toMatchObject({ scope: null, readOnly: false, outputSchema: { type: 'object' } });
  });
});

describe('resources and the prompt', () => {
  it('the documents and the resort templates, each with its name, title, description and type', () => {
    expect(documentList()).toEqual([
      expect.objectContaining({ uri: 'gateway://schema.graphql', name: 'graphql-schema', mimeType: 'application/graphql' }),
      expect.objectContaining({ uri: 'gateway://openapi.json', name: 'openapi', mimeType: 'application/json' }),
    ]);
    expect(templates()).toEqual([
      {
        uriTemplate: 'resort://{id}/conditions',
        name: 'resort-conditions',
        title: 'Resort conditions',
        description: expect.stringMatching(/^The resort's snow report now .* Subscribe to be told when it changes .*\{id\} is a resort id such as vail\.$/),
        mimeType: 'application/json',
      },
      expect.objectContaining({ uriTemplate: 'resort://{id}/weather', name: 'resort-weather', title: 'Resort weather', mimeType: 'application/json' }),
    ]);
  });

  it('what a URI names: a document, or a resort’s view with its id in lower case; anything else nothing', () => {
    expect(targetOf('gateway://openapi.json')).toEqual({ kind: 'document', uri: 'gateway://openapi.json' });
    expect(targetOf('resort://VAIL/weather')).toEqual({ kind: 'resort', uri: 'resort://vail/weather', resortId: 'vail', view: 'weather' });
    for (const uri of [
      'resort://-vail/conditions',
      'resort://vail/lifts',
      'resort:///conditions',
      'gateway://toString',
      'file:///etc/passwd',
      'xresort://vail/conditions',
      'resort://vail/conditions/x',
    ])
      expect(targetOf(uri), uri).toBeNull();
  });

  it('each view is read by its tool, which must exist', () => {
    const tools = toolsOf(schema);
    expect(readerOf(tools, 'conditions').name).toBe('resort_conditions');
    expect(readerOf(tools, 'weather').name).toBe('resort_forecast');
    expect(() => readerOf([], 'weather')).toThrow('the resort_forecast operation reads resort://{id}/weather: it must exist');
  });

  it('the prompt: the day given (at most 40 characters) or today, the ZIP checked; another name refused naming it', () => {
    const text = (args: Record<string, string>) => (getPrompt('plan_ski_day', args).messages[0]!.content as { text: string }).text;
    expect(getPrompt('plan_ski_day', { zip: '81657' })).toMatchObject({ description: PROMPTS[0]!.description, messages: [{ role: 'user' }] });
    expect(text({ zip: '81657' })).toMatch(
      /^I want to ski today, starting from ZIP 81657\. Call resorts_near_zip .*\. Weigh new snow .*\. Recommend one resort .*\.$/,
    );
    expect(text({ zip: '81657', day: '' })).toMatch(/^I want to ski today,/);
    expect(text({ zip: '81657', day: 'x'.repeat(50) })).toMatch(new RegExp(`^I want to ski ${'x'.repeat(40)}, starting`));
    expect(() => getPrompt('plan_ski_week', { zip: '81657' })).toThrow('No prompt "plan_ski_week"; prompts/list names them.');
    expect(() => getPrompt('plan_ski_day', {})).toThrow('zip must be a US ZIP code of exactly 5 digits.');
  });
});

describe('a call’s outcome as a tool result', () => {
  it('data as structured content and its JSON text; errors each as its code and message, one a line, ERROR when it has no code', () => {
    expect(outcomeOf({ kind: 'result', result: { data: { a: 1 } } } as never)).toEqual({ ok: true, data: { a: 1 } });
    expect(outcomeOf({ kind: 'result', result: {} } as never)).toEqual({ ok: true, data: {} });
    const failed = outcomeOf({
      kind: 'result',
      result: { data: { a: null }, errors: [new GraphQLError('gone', { extensions: { code: 'NOT_FOUND' } }), new GraphQLError('odd')] },
    } as never);
    expect(failed).toEqual({
      ok: false,
      data: { a: null },
      errors: [
        { code: 'NOT_FOUND', message: 'gone' },
        { code: 'ERROR', message: 'odd' },
      ],
    });
    expect(outcomeOf({ kind: 'refused', status: 429, errors: [{ message: 'slow down', extensions: { code: 'RATE_LIMITED' } }] } as never)).toEqual({
      ok: false,
      errors: [{ code: 'RATE_LIMITED', message: 'slow down' }],
    });
    expect(outcomeOf({ kind: 'refused', status: 400, errors: [{ message: 'plain' }] } as never)).toEqual({
      ok: false,
      errors: [{ code: 'ERROR', message: 'plain' }],
    });
    expect(outcomeOf({ kind: 'stream', parts: [] } as never)).toEqual({
      ok: false,
      errors: [{ code: 'INTERNAL_SERVER_ERROR', message: 'The operation did not answer with one result.' }],
    });

    expect(toolResult({ ok: true, data: { a: 1 } })).toEqual({ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } });
    expect(toolResult(failed)).toEqual({ isError: true, content: [{ type: 'text', text: 'NOT_FOUND: gone\nERROR: odd' }] });
  });
});
