import { z } from 'zod';
import { getOperationAST, isInputObjectType, isObjectType, TypeInfo, visit, visitWithTypeInfo, type GraphQLSchema } from 'graphql';
import { validate } from '../../validation/validate.js';
import type { RestRoute } from './route.js';
import { PARAMETER_EXAMPLES } from './examples.js';
import { RESPONSE_EXAMPLES } from './operations/response-examples.js';
import './responses.js';
import { columnsOf, ndjsonRows, OFFERED, toCsv } from './list-formats.js';
import { nullablesAsTypeArrays } from './nullable-types.js';

/**
 * /openapi.json: the OpenAPI 3.1 description of the REST API, generated from the route table —
 * each route's parameters from its zod schema (types, bounds, defaults), its 200 body from its
 * response schema (src/rest/responses.ts), and the problem+json errors it can answer — so the
 * document cannot drift from what the server does (the tests validate real answers against it).
 */

type Json = Record<string, unknown>;

const PROBLEM = { $ref: '#/components/schemas/Problem' };
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: PROBLEM } } });
const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': { description: 'The monthly quota (or, on a cost 429, the cost budget).', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left this month.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the quota resets.', schema: { type: 'integer' } },
  'RateLimit-Policy': { description: 'Both limits: quota;w=seconds, rate;w=1.', schema: { type: 'string' } },
};

/** Every schema with an id (the documented bodies and their shared parts), as components. */
function components(): Json {
  const { schemas } = z.toJSONSchema(z.globalRegistry, { uri: (id) => `#/components/schemas/${id}`, io: 'output', unrepresentable: 'any' }) as {
    schemas: Record<string, Json>;
  };
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
    nullablesAsTypeArrays(schema);
  }
  return schemas;
}

function idOf(schema: z.ZodType): string {
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error('a documented response schema needs an id (src/rest/responses.ts)');
  return id;
}

/**
 * What the GraphQL schema says about a route's operation: the descriptions of the fields it asks at
 * the root (the operation's description), and of the argument each variable feeds (its
 * parameter's): one text, on both surfaces.
 */
function documentedBySchema(route: RestRoute, schema: GraphQLSchema): { description: string; variables: Map<string, string> } {
  const typeInfo = new TypeInfo(schema);
  const roots: string[] = [];
  const variables = new Map<string, string>();
  const rootTypes = new Set([schema.getQueryType(), schema.getMutationType()].filter(isObjectType));
  visit(
    route.operation,
    visitWithTypeInfo(typeInfo, {
      Field() {
        const parent = typeInfo.getParentType();
        const description = typeInfo.getFieldDef()?.description;
        if (description && parent && rootTypes.has(parent as never)) roots.push(description);
      },
      Argument(node) {
        const description = typeInfo.getArgument()?.description;
        if (description && node.value.kind === 'Variable' && !variables.has(node.value.name.value)) variables.set(node.value.name.value, description);
      },
      // A variable inside an input object (resorts' filter and paging): the input field's description.
      ObjectField(node) {
        const parent = typeInfo.getParentInputType();
        const description = isInputObjectType(parent) ? parent.getFields()[node.name.value]?.description : undefined;
        if (description && node.value.kind === 'Variable' && !variables.has(node.value.name.value)) variables.set(node.value.name.value, description);
      },
    }),
  );
  return { description: roots.join(' '), variables };
}

/**
 * The operation variable each parameter becomes: its own name, unless the route renames it
 * (`/api/city/{city}` passes `city` as `name`), found by running the route's mapping on the examples.
 */
function variableNames(route: RestRoute, names: readonly string[]): Map<string, string> {
  const byName = new Map(names.map((n) => [n, n]));
  if (!route.variables) return byName;
  const params = validate(
    route.params,
    Object.fromEntries(names.flatMap((n) => (PARAMETER_EXAMPLES[n] === undefined ? [] : [[n, String(PARAMETER_EXAMPLES[n])]]))),
  ) as Record<string, unknown>;
  const variables = route.variables(params as never) as Record<string, unknown>;
  for (const name of names) {
    if (name in variables) continue;
    const renamed = Object.keys(variables).find((v) => variables[v] === params[name] && !names.includes(v));
    if (renamed) byName.set(name, renamed);
  }
  return byName;
}

function parameters(route: RestRoute, described: Map<string, string>): Json[] {
  const pathNames = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const shape = (route.params as unknown as z.ZodObject).shape as Record<string, z.ZodType>;
  const variableOf = variableNames(route, Object.keys(shape));
  return Object.entries(shape).map(([name, schema]) => {
    const input = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
    const output = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Json;
    delete input.$schema;
    const inPath = pathNames.includes(name);
    const optional = schema.safeParse(undefined).success;
    const description = described.get(variableOf.get(name)!) ?? (input.description as string | undefined);
    delete input.description;
    // A list is one comma-separated value (codes=90210,05401), or the parameter repeated.
    const list = input.type === 'array';
    const example = PARAMETER_EXAMPLES[name];
    return {
      name,
      in: inPath ? 'path' : 'query',
      ...(description ? { description } : {}),
      required: inPath || !optional,
      ...(list ? { style: 'form', explode: false } : {}),
      schema: { ...input, ...(output.default !== undefined ? { default: output.default } : {}) },
      ...(example !== undefined ? { example: list ? String(example).split(',') : example } : {}),
    };
  });
}

/**
 * A list's other forms (list-formats.ts): its items as CSV (one column per field, nested fields
 * dotted) and as NDJSON (one item per line), with the recorded answer's items as the example.
 */
function listContent(route: RestRoute): Json {
  const recorded = RESPONSE_EXAMPLES[route.path] as Record<string, unknown[]> | undefined;
  const items = recorded?.[route.list!];
  const item = ((route.response as unknown as z.ZodObject).shape[route.list!] as z.ZodArray<z.ZodType>).element;
  return {
    'text/csv': {
      schema: {
        type: 'string',
        description: `The \`${route.list}\` items, RFC 4180 with a header row: ${columnsOf(item)
          .map((c) => c.name)
          .join(', ')}.`,
      },
      ...(items ? { example: toCsv(items, columnsOf(item)) } : {}),
    },
    'application/x-ndjson': {
      schema: { type: 'string', description: `The \`${route.list}\` items, one JSON object per line.` },
      ...(items ? { example: ndjsonRows(items) } : {}),
    },
  };
}

function operation(route: RestRoute, schema: GraphQLSchema): Json {
  const described = documentedBySchema(route, schema);
  const params = parameters(route, described.variables);
  const hasId = /:(\w+)/.test(route.path);
  const name = getOperationAST(route.operation)?.name?.value.replace(/^Rest/, '') ?? route.path;
  const responses: Json = {
    200: {
      description: route.summary,
      headers: {
        ...(route.freshness === 'none'
          ? {}
          : { ETag: { description: 'A strong tag of this answer; send it back as If-None-Match.', schema: { type: 'string' } } }),
        ...RATE_LIMIT_HEADERS,
      },
      content: {
        'application/json': {
          schema: { $ref: `#/components/schemas/${idOf(route.response)}` },
          ...(RESPONSE_EXAMPLES[route.path] !== undefined ? { example: RESPONSE_EXAMPLES[route.path] } : {}),
        },
        ...(route.list ? listContent(route) : {}),
      },
    },
    ...(route.freshness === 'none' ? {} : { 304: { description: 'Not modified: the If-None-Match tag is this answer’s.' } }),
    ...(params.length > 0 ? { 400: problem('A parameter is out of its bounds or malformed; `errors` names each one.') } : {}),
    401: problem('No key, an unknown key, or a revoked key.'),
    ...(route.method === 'POST' ? { 403: problem('The key lacks the admin scope.') } : {}),
    ...(route.list ? { 406: problem(`The Accept header names none of ${OFFERED}.`) } : {}),
    ...(hasId ? { 404: problem('No such ZIP code, state, city or resort.') } : {}),
    429: {
      ...problem('Over the per-second rate, the monthly quota, or the cost budget; see Retry-After.'),
      headers: { 'Retry-After': { schema: { type: 'integer' } }, ...RATE_LIMIT_HEADERS },
    },
    ...(route.path.endsWith('/history') ? { 502: problem('The weather provider failed (provider lookup error).') } : {}),
    503: problem(
      route.path === '/api/sync/run'
        ? 'The request ran past the execution time limit, or (replicas) this replica does not lead and cannot reach Redis to ask the leader (SYNC_LEADER_UNREACHABLE).'
        : 'The request ran past the execution time limit.',
    ),
  };
  return {
    operationId: name.charAt(0).toLowerCase() + name.slice(1),
    summary: route.summary,
    ...(described.description ? { description: described.description } : {}),
    tags: [
      route.path.startsWith('/api/sync')
        ? 'sync'
        : /^\/api\/(resorts|conditions|insights)/.test(route.path)
          ? 'resorts'
          : route.path === '/health'
            ? 'service'
            : 'zip',
    ],
    parameters: params,
    responses,
  };
}

/**
 * HEAD of a GET path: the same status and headers without the body (every GET path answers HEAD,
 * the probes too).
 */
function headOf(get: Json): Json {
  const responses: Json = {};
  for (const [status, response] of Object.entries(get.responses as Record<string, Json>)) {
    const { content: _content, ...rest } = response;
    responses[status] = rest;
  }
  return {
    ...get,
    operationId: `${get.operationId as string}Head`,
    summary: `${get.summary as string} (headers only)`,
    description: `The GET answer's status and headers, without its body.`,
    responses,
    // In the document for clients and tools; left out of the reference's sidebar (Scalar), where
    // every GET would otherwise be listed twice.
    'x-scalar-ignore': true,
  };
}

const PROBE_BODY = {
  'application/json': {
    schema: {
      type: 'object',
      properties: { status: { type: 'string' }, waiting: { type: 'array', items: { type: 'string' } }, notes: { type: 'array', items: { type: 'string' } } },
      required: ['status'],
    },
  },
};

function probe(operationId: string, summary: string, description: string, unavailable: string): Json {
  return {
    operationId,
    summary,
    description,
    tags: ['service'],
    security: [],
    responses: {
      200: { description: 'Yes.', content: PROBE_BODY },
      405: problem('Probes answer GET and HEAD only.'),
      503: { description: unavailable, content: PROBE_BODY },
    },
  };
}

export function openApiDocument(routes: readonly RestRoute[], version: string, schema: GraphQLSchema): Json {
  const paths: Json = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const method = (route.method ?? 'GET').toLowerCase();
    const op = operation(route, schema);
    paths[path] = { ...(paths[path] as Json | undefined), [method]: op, ...(method === 'get' ? { head: headOf(op) } : {}) };
  }
  const livez = probe(
    'livez',
    'Liveness: the process answers. No key needed, not counted.',
    'For a process supervisor: 200 while the event loop runs.',
    'Never: a process that answers is live.',
  );
  const readyz = probe(
    'readyz',
    'Readiness: the database is open and today’s weather is there. No key needed, not counted.',
    'For a load balancer: 200 once the server is warmed up and has today’s weather window; `waiting` says what it is still waiting for, `notes` what it serves without (e.g. Redis).',
    'Starting: `waiting` lists what is not done yet.',
  );
  paths['/livez'] = { get: livez, head: headOf(livez) };
  paths['/readyz'] = { get: readyz, head: headOf(readyz) };
  return {
    openapi: '3.1.0',
    info: {
      title: 'ski-zip-gateway',
      version,
      contact: { name: 'The operators of this server' },
      // What the answers carry: GeoNames' ZIP codes (and Open-Meteo's weather, where it is used) are CC BY 4.0.
      license: { name: 'Data: CC BY 4.0 (GeoNames ZIP codes; Open-Meteo weather)', identifier: 'CC-BY-4.0' },
      description:
        'US ZIP codes and ski resort conditions. Every path is served as documented and under /v1. ' +
        'Every request needs an API key in the x-api-key header. Where to get one: the service’s [index](/) says how ' +
        'this server’s keys are made. The reference at /docs starts with the key GraphiQL keeps in the browser; without ' +
        'one, type yours under Authentication (the grey text in its field is a sample, not a key). GraphQL over the same ' +
        'data is at [/graphql](/graphql) (GraphiQL in a browser).',
    },
    servers: [
      { url: '/', description: 'As documented' },
      { url: '/v1', description: 'The hosted prefix' },
    ],
    security: [{ ApiKey: [] }],
    tags: [
      { name: 'zip', description: 'The US ZIP code API' },
      { name: 'resorts', description: 'The ski resort conditions API' },
      { name: 'sync', description: 'Pulling conditions from the weather providers' },
      { name: 'service', description: 'Health and probes' },
    ],
    paths,
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description:
            'A key of this server: its first start printed one (and wrote first-api-key.txt beside its database); ' +
            'make more with `npm run keys -- create --name NAME` where it runs. The [index](/) says how this server’s keys are made.',
        },
      },
      schemas: components(),
    },
  };
}
