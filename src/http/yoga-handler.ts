/**
 * Yoga, for what the fast JSON path does not serve: GET queries, SSE subscriptions and unusual
 * bodies. Loaded on first use (it is a large part of the process's code), over Node's request
 * and response directly, with the shared plugins.
 */
import type { GraphQLSchema } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import type { Logger } from '../logger.js';
import type { GraphQLContext } from '../graphql/context.js';
import type { GraphQLPlugin } from '../graphql/executor.js';
import type { FinalizeResult } from '../graphql/finalize.js';
import type { Exchange } from './exchange.js';
import type { YogaHandler } from './graphql-handler.js';

interface ServerContext {
  requestId: string;
  gqlContext: GraphQLContext;
}

/** Yoga's own answers (request parsing, GET, SSE events) get the same codes and request id. */
const errorCodes = (finalizeResult: FinalizeResult): Plugin<Record<string, unknown>, ServerContext> => ({
  onResultProcess({ result, setResult, serverContext }) {
    if (Array.isArray(result)) setResult(result.map((r) => finalizeResult(r, serverContext.requestId)));
    else if (result && typeof result === 'object' && !(Symbol.asyncIterator in result)) setResult(finalizeResult(result, serverContext.requestId));
  },
});

export function createYogaHandler(schema: GraphQLSchema, plugins: GraphQLPlugin[], finalizeResult: FinalizeResult, logger: Logger): YogaHandler {
  const yoga = createYoga<ServerContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    cors: false,
    logging: logger,
    // Masking, caches and limits come from the shared plugins; Yoga adds none of its own.
    maskedErrors: false,
    parserAndValidationCache: false,
    // The GraphiQL page is ours (http/pages.ts): compressed, cached, and asking for a key first.
    graphiql: false,
    plugins: [
      ...(plugins as Plugin[]),
      // Requests carrying our key header cannot be forged by a cross-site form or image.
      useCSRFPrevention({ requestHeaders: ['x-api-key', 'x-graphql-yoga-csrf'] }),
      errorCodes(finalizeResult) as Plugin,
    ],
    context: ({ gqlContext }) => gqlContext,
  });
  return async (ex: Exchange, context: GraphQLContext) => {
    // Yoga's Node listener answers on the response itself; the server context rides along.
    const listener = yoga.requestListener as unknown as (req: Exchange['req'], res: Exchange['res'], ctx: ServerContext) => Promise<void> | void;
    await listener(ex.req, ex.res, { requestId: ex.requestId, gqlContext: context });
  };
}
