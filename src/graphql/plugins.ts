import { GraphQLError, type ExecutionResult } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from '@envelop/core';
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { useDisableIntrospection } from '@envelop/disable-introspection';
import { useParserCache } from '@envelop/parser-cache';
import { useValidationCache } from '@envelop/validation-cache';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { LRUCache } from 'lru-cache';
import type { GraphQLContext } from './context.js';
import { overLimit, type createCostAnalysis } from './cost.js';

/** Query limits for /graphql (graphql-armor); the REST shims run fixed, known operations. */
export const QUERY_LIMITS = { maxDepth: 12, maxAliases: 15, maxTokens: 2000, maxDirectives: 20 } as const;

export const UNEXPECTED_MESSAGE = 'Unexpected error.';

export interface GraphQLPluginOptions {
  introspection: boolean;
  costOf: ReturnType<typeof createCostAnalysis>;
}

/**
 * The one set of Envelop plugins every GraphQL request runs through, whether /graphql's fast JSON
 * path (envelop directly) or Yoga (GraphiQL, GET, SSE), so limits, masking and error codes cannot
 * drift between the two:
 * - graphql-armor's depth, alias, token and directive limits, and no "did you mean" suggestions
 *   when introspection is off;
 * - parse and validation caches, so a repeated query costs neither again;
 * - one cost analysis before execution (graphql/cost.ts), over the limit is QUERY_TOO_COMPLEX;
 * - graphql-jit: each document compiled once, then run as plain JavaScript;
 * - the error policy: our errors pass with their codes, anything else is masked and logged.
 */
// Envelop's plugin types are invariant in the context; the plugins here agree on GraphQLContext.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type GraphQLPlugin = Plugin<any>;

export function createGraphQLPlugins(options: GraphQLPluginOptions): GraphQLPlugin[] {
  const armor = new EnvelopArmor({
    maxDepth: { n: QUERY_LIMITS.maxDepth },
    maxAliases: { n: QUERY_LIMITS.maxAliases },
    maxTokens: { n: QUERY_LIMITS.maxTokens },
    maxDirectives: { n: QUERY_LIMITS.maxDirectives },
    // Cost is ours (graphql/cost.ts): armor's estimate ignores list sizes and would be a second analysis.
    costLimit: { enabled: false },
    blockFieldSuggestion: { enabled: !options.introspection },
  });
  return [
    useParserCache({ documentCache: keepFirst(1000), errorCache: keepFirst(1000) }),
    useValidationCache({ cache: keepFirst(1000) }),
    ...armor.protect().plugins,
    ...(options.introspection ? [] : [useDisableIntrospection()]),
    useCost(options.costOf),
    useGraphQlJit({}, { onError: () => {} }),
    useErrorPolicy(),
  ];
}

/**
 * A bounded cache for the parse and validation caches that writes a key only once: those plugins
 * store their result again on every hit, and an LRU write (with its TTL bookkeeping) cost more
 * than the lookup it saved. Entries never go stale (the schema is fixed for the process).
 */
function keepFirst<V extends object>(max: number) {
  const lru = new LRUCache<string, V>({ max });
  return {
    get: (key: string) => lru.get(key),
    set: (key: string, value: V) => {
      if (!lru.has(key)) lru.set(key, value);
    },
  };
}

/**
 * Refuses an operation over the cost limits before anything runs, then charges its cost to the
 * key's budget (429 RATE_LIMITED when it does not fit); records the cost on the context.
 */
function useCost(costOf: GraphQLPluginOptions['costOf']): Plugin<GraphQLContext> {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const cost = costOf(args.document, args.variableValues);
      if (!cost) return;
      const ctx = args.contextValue as GraphQLContext;
      ctx.cost = cost.complexity;
      const error = overLimit(cost) ?? (await ctx.costBudget.charge(ctx.budgetHolder, cost.complexity));
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
}

/**
 * Errors we raise are GraphQLErrors with an `extensions.code`; they pass as they are. Anything
 * else thrown in a resolver is a bug: the client sees "Unexpected error." with code
 * INTERNAL_SERVER_ERROR, and the log gets the whole error with the request id.
 */
function useErrorPolicy(): Plugin<GraphQLContext> {
  const handle =
    (ctx: GraphQLContext) =>
    ({ result, setResult }: { result: ExecutionResult; setResult: (r: ExecutionResult) => void }) => {
      if (!result.errors?.length) return;
      setResult({ ...result, errors: result.errors.map((e) => maskError(e, ctx)) });
    };
  return {
    onExecute({ args }) {
      return { onExecuteDone: (payload) => handleStreamOrSingleExecutionResult(payload, handle(args.contextValue as GraphQLContext)) };
    },
    onSubscribe({ args }) {
      return { onSubscribeResult: (payload) => handleStreamOrSingleExecutionResult(payload, handle(args.contextValue as GraphQLContext)) };
    },
  };
}

function isOurs(error: unknown): boolean {
  if (!(error instanceof GraphQLError)) return false;
  return error.originalError ? isOurs(error.originalError) : true;
}

export function maskError(error: GraphQLError, ctx: GraphQLContext): GraphQLError {
  if (isOurs(error)) return error;
  ctx.logger.error({ err: error.originalError ?? error, path: error.path }, 'unexpected error in a resolver');
  return new GraphQLError(UNEXPECTED_MESSAGE, { path: error.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } });
}

/** What `finalize` does to every result before it is serialized. */
export type FinalizeResult = <R extends ExecutionResult>(result: R, requestId: string, codeForUncoded?: string) => R;

const SUGGESTION = /\s*Did you mean [^?]*\?/g;

/**
 * Every error leaves with a code, and every result with the request id, whichever layer raised
 * it. Internals never leave: no `originalError` extension; and with introspection off, no "Did you
 * mean …?" hint either (they name fields and enum values the schema does not show).
 */
export function createFinalizer(options: { hideSuggestions: boolean }): FinalizeResult {
  return (result, requestId, codeForUncoded = 'GRAPHQL_VALIDATION_FAILED') => {
    const errors = result.errors?.map((e) => {
      const code = e.extensions?.code ?? (e.message === UNEXPECTED_MESSAGE ? 'INTERNAL_SERVER_ERROR' : codeForUncoded);
      const hinted = options.hideSuggestions && SUGGESTION.test(e.message);
      SUGGESTION.lastIndex = 0;
      if (e.extensions?.code !== undefined && !hinted && !('originalError' in (e.extensions ?? {}))) return e;
      const { originalError: _o, ...extensions } = (e.extensions ?? {}) as Record<string, unknown>;
      return copyError(e, hinted ? e.message.replace(SUGGESTION, '') : e.message, { ...extensions, code });
    });
    return { ...result, ...(errors ? { errors } : {}), extensions: { ...result.extensions, requestId } };
  };
}

/** A copy of an error with other text or extensions (errors from graphql-jit have read-only extensions). */
function copyError(e: GraphQLError, message: string, extensions: Record<string, unknown>): GraphQLError {
  const out = new GraphQLError(message, { path: e.path, originalError: e.originalError, extensions });
  if (e.locations) (out as { locations?: unknown }).locations = e.locations;
  return out;
}
