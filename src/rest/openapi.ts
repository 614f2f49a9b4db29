import { z } from 'zod';
import { getOperationAST } from 'graphql';
import type { RestRoute } from './route.js';
import './responses.js';

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
  const { schemas } = z.toJSONSchema(z.globalRegistry, { uri: (id) => `#/components/schemas/${id}`, io: 'output', unrepresentable: 'any' }) as { schemas: Record<string, Json> };
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return schemas;
}

function idOf(schema: z.ZodType): string {
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error('a documented response schema needs an id (src/rest/responses.ts)');
  return id;
}

function parameters(route: RestRoute): Json[] {
  const pathNames = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const shape = (route.params as unknown as z.ZodObject).shape as Record<string, z.ZodType>;
  return Object.entries(shape).map(([name, schema]) => {
    const input = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
    const output = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Json;
    delete input.$schema;
    const inPath = pathNames.includes(name);
    const optional = schema.safeParse(undefined).success;
    return {
      name,
      in: inPath ? 'path' : 'query',
      required: inPath || !optional,
      schema: { ...input, ...(output.default !== undefined ? { default: output.default } : {}) },
    };
  });
}

function operation(route: RestRoute): Json {
  const params = parameters(route);
  const hasId = /:(\w+)/.test(route.path);
  const name = getOperationAST(route.operation)?.name?.value.replace(/^Rest/, '') ?? route.path;
  const responses: Json = {
    200: {
      description: route.summary,
      headers: { ...(route.freshness === 'none' ? {} : { ETag: { description: 'A strong tag of this answer; send it back as If-None-Match.', schema: { type: 'string' } } }), ...RATE_LIMIT_HEADERS },
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${idOf(route.response)}` } } },
    },
    ...(route.freshness === 'none' ? {} : { 304: { description: 'Not modified: the If-None-Match tag is this answer’s.' } }),
    ...(params.length > 0 ? { 400: problem('A parameter is out of its bounds or malformed; `errors` names each one.') } : {}),
    401: problem('No key, an unknown key, or a revoked key.'),
    ...(route.method === 'POST' ? { 403: problem('The key lacks the admin scope.') } : {}),
    ...(hasId ? { 404: problem('No such ZIP code, state, city or resort.') } : {}),
    429: { ...problem('Over the per-second rate, the monthly quota, or the cost budget; see Retry-After.'), headers: { 'Retry-After': { schema: { type: 'integer' } }, ...RATE_LIMIT_HEADERS } },
    ...(route.path.endsWith('/history') ? { 502: problem('The weather provider failed (provider lookup error).') } : {}),
    503: problem('The request ran past the execution time limit.'),
  };
  return {
    operationId: name.charAt(0).toLowerCase() + name.slice(1),
    summary: route.summary,
    tags: [route.path.startsWith('/api/sync') ? 'sync' : /^\/api\/(resorts|conditions|insights)/.test(route.path) ? 'resorts' : route.path === '/health' ? 'service' : 'zip'],
    parameters: params,
    responses,
  };
}

export function openApiDocument(routes: readonly RestRoute[], version: string): Json {
  const paths: Json = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    paths[path] = { ...(paths[path] as Json | undefined), [(route.method ?? 'GET').toLowerCase()]: operation(route) };
  }
  const probe = (description: string) => ({
    get: {
      operationId: description.startsWith('Liveness') ? 'livez' : 'readyz',
      summary: description,
      tags: ['service'],
      security: [],
      responses: { 200: { description: 'Yes.', content: { 'application/json': { schema: { type: 'object' } } } }, 503: { description: 'Not (yet).', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  });
  paths['/livez'] = probe('Liveness: the process answers. No key needed, not counted.');
  paths['/readyz'] = probe('Readiness: the database is open and today’s weather is there. No key needed, not counted.');
  return {
    openapi: '3.1.0',
    info: {
      title: 'ski-zip-gateway',
      version,
      description:
        'US ZIP codes and ski resort conditions. Every path is served as documented and under /v1. ' +
        'Every request needs an API key in the x-api-key header. GraphQL over the same data is at [/graphql](/graphql) ' +
        '(GraphiQL in a browser); the service\'s index is at [/](/).',
    },
    servers: [{ url: '/', description: 'As documented' }, { url: '/v1', description: 'The hosted prefix' }],
    security: [{ ApiKey: [] }],
    tags: [
      { name: 'zip', description: 'The US ZIP code API' },
      { name: 'resorts', description: 'The ski resort conditions API' },
      { name: 'sync', description: 'Pulling conditions from the weather providers' },
      { name: 'service', description: 'Health and probes' },
    ],
    paths,
    components: {
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Get one with `npm run keys -- create --name NAME` on the server.' } },
      schemas: components(),
    },
  };
}
