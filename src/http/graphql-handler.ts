import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { createContext, type Services } from '../graphql/context.js';
import { readBody } from './body.js';
import { withDeadline } from './deadline.js';

interface YogaServerContext {
  requestId: string;
  log: Logger;
  signal?: AbortSignal;
}

/** Query limits for /graphql (graphql-armor); the REST shims run fixed, known operations. */
export const QUERY_LIMITS = { maxDepth: 12, maxAliases: 15, maxTokens: 2000, maxCost: 20_000, maxDirectives: 20 } as const;

const DEFAULT_QUERY = `# Every request needs an API key: put it in the Headers tab below as
#   { "x-api-key": "your key" }
# (create one with: npm run keys -- create --name me)

query {
  zip(zip: "81657") {
    city
    nearbyResorts(radiusMiles: 40, limit: 3) { distanceMiles resort { name conditions { snowDepthBase newSnow24h } } }
  }
}
`;

/** Every error leaves with a code and the request id, whichever layer raised it. */
const errorCodes: Plugin = {
  onResultProcess({ result, serverContext }) {
    const results = Array.isArray(result) ? result : [result];
    for (const r of results) {
      if (!r || typeof r !== 'object' || !('errors' in r) || !r.errors) continue;
      for (const e of r.errors as readonly { message: string; extensions?: Record<string, unknown> }[]) {
        const ext = (e.extensions ??= {});
        ext.code ??= e.message === 'Unexpected error.' ? 'INTERNAL_SERVER_ERROR' : 'GRAPHQL_VALIDATION_FAILED';
      }
      (r as { extensions?: Record<string, unknown> }).extensions = {
        ...(r as { extensions?: Record<string, unknown> }).extensions,
        requestId: (serverContext as unknown as YogaServerContext).requestId,
      };
    }
  },
};

/** /graphql: Yoga behind our own body limit, deadline, and the Fetch API. */
export function createGraphQLHandler(schema: GraphQLSchema, services: Services, config: Config) {
  const armor = new EnvelopArmor({
    maxDepth: { n: QUERY_LIMITS.maxDepth },
    maxAliases: { n: QUERY_LIMITS.maxAliases },
    maxTokens: { n: QUERY_LIMITS.maxTokens },
    costLimit: { maxCost: QUERY_LIMITS.maxCost },
    maxDirectives: { n: QUERY_LIMITS.maxDirectives },
    blockFieldSuggestion: { enabled: !config.introspection },
  });
  const yoga = createYoga<YogaServerContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    cors: false,
    logging: services.logger,
    maskedErrors: { isDev: false },
    graphiql: { title: 'ski-zip-gateway', defaultQuery: DEFAULT_QUERY, headers: JSON.stringify({ 'x-api-key': '' }) },
    renderGraphiQL,
    plugins: [
      ...armor.protect().plugins,
      // Requests carrying our key header cannot be forged by a cross-site form or image.
      useCSRFPrevention({ requestHeaders: ['x-api-key', 'x-graphql-yoga-csrf'] }),
      ...(config.introspection ? [] : [useDisableIntrospection()]),
      errorCodes,
    ],
    context: ({ requestId, log, signal }) => createContext(services, requestId, log, signal),
  });

  return async function handle(req: IncomingMessage, res: ServerResponse, url: string, ctx: YogaServerContext): Promise<void> {
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const body = hasBody ? new Uint8Array(await readBody(req, config.maxBodyBytes)) : undefined;
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === 'string') headers.set(k, v);
      else if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    }
    const controller = new AbortController();
    // The client went away before the answer was complete (e.g. an SSE subscriber): stop the work.
    res.once('close', () => res.writableFinished || controller.abort());
    const response = await withDeadline(
      Promise.resolve(yoga.fetch(new URL(url, 'http://localhost'), { method: req.method, headers, body, signal: controller.signal }, { ...ctx, signal: controller.signal })),
      config.executionTimeoutMs,
      controller,
    );
    const out: Record<string, string> = {};
    response.headers.forEach((value, key) => (out[key] = value));
    res.writeHead(response.status, out);
    if (!response.body) return void res.end();
    // Chunk by chunk, so streamed responses (subscriptions over SSE) reach the client as they come.
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
      }
    } finally {
      res.end();
    }
  };
}

export function isGraphiQLPage(req: IncomingMessage): boolean {
  return req.method === 'GET' && (req.headers.accept ?? '').includes('text/html');
}
