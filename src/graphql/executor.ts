import { BREAK, GraphQLError, execute, getOperationAST, parse, specifiedRules, subscribe, validate, visit, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { envelop, handleStreamOrSingleExecutionResult, useEngine, useSchema, type Plugin } from '@envelop/core';
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { useDisableIntrospection } from '@envelop/disable-introspection';
import { useParserCache } from '@envelop/parser-cache';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import type { CompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';
import type { GraphQLContext } from './context.js';
import { createCostAnalysis, overLimit } from './cost.js';
import { cutAtDeadline, type IncrementalPart } from './incremental.js';
import { withCost } from './cost-extension.js';
import { mayDisableLeafSerialization } from './leaf-serialization.js';
import { traced, tracingOn } from '../telemetry/trace.js';

/** Query limits for /graphql (graphql-armor); the REST shims run fixed, known operations. */
export const QUERY_LIMITS = { maxDepth: 12, maxAliases: 15, maxTokens: 2000, maxDirectives: 20 } as const;

export const UNEXPECTED_MESSAGE = 'Unexpected error.';

export interface ExecutorOptions {
  schema: GraphQLSchema;
  introspection: boolean;
}

/** What parsing and validating a query text gave: a document to run, or the errors to answer with. */
export type Prepared = { document: DocumentNode; errors?: undefined } | { document?: undefined; errors: readonly GraphQLError[]; stage: 'parse' | 'validate' };

/** One request's way through the executor (its Envelop instance, over the request's context). */
export interface ExecutionRun {
  /** Parses and validates a query text (cached per text); armor's limits apply here. */
  prepare(source: string): Prepared;
  /** Runs a valid document: the cost limit and the key's budget, then graphql-jit, then the error policy. */
  execute(document: DocumentNode, variables?: Readonly<Record<string, unknown>> | null, operationName?: string | null): Promise<ExecutionResult>;
  /** The context the resolvers see. */
  readonly context: GraphQLContext;
}

export interface Executor {
  /** The plugin list, for Yoga (GET, SSE and multipart), which runs it with its own engine. */
  readonly plugins: GraphQLPlugin[];
  /** Starts a request's run over its context. */
  begin(context: GraphQLContext): ExecutionRun;
  /** Validates a fixed document (a REST shim's operation) with the same rules. */
  check(document: DocumentNode): readonly GraphQLError[];
  /**
   * Takes a fixed document of ours (a REST shim's operation) as valid without validating it:
   * graphql-codegen validates each against the schema when it is generated, CI fails when the
   * generated file is stale, and the suite checks each with `check` (test/unit/rest-shapes.test.ts).
   * Validating them again at every start cost ~13 ms before the first answer and ~50 ms of CPU.
   */
  trust(document: DocumentNode): void;
  /**
   * Loads graphql-jit (once; the server calls it just after it listens). Until it is loaded,
   * documents run on graphql-js: the first answers after start need not wait for the compiler.
   */
  loadCompiler(): Promise<void>;
}

type Jit = typeof import('graphql-jit');
/** graphql-jit, once loaded: its ~125 KB of modules, and compiling the first operation, are work the first answer after start does not need. */
let jit: Jit | null = null;
let jitLoading: Promise<void> | null = null;
function loadJit(): Promise<void> {
  return (jitLoading ??= import('graphql-jit').then((m) => void (jit = m)));
}

// Envelop's plugin types are invariant in the context; the plugins here agree on GraphQLContext.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type GraphQLPlugin = Plugin<any>;

/**
 * The one GraphQL executor. Every GraphQL operation runs through its Envelop plugin list:
 * /graphql's fast JSON path and each REST shim through `begin()`, Yoga (GraphiQL's GET, SSE,
 * multipart) with the same list; so a rule for every GraphQL request is one plugin here:
 * - graphql-armor's depth, alias, token and directive limits, and no "did you mean" suggestions
 *   when introspection is off;
 * - parse and validation caches, so a repeated query costs neither again;
 * - execution, one plugin (useExecution below): one cost analysis before anything runs
 *   (graphql/cost.ts; over the limit is QUERY_TOO_COMPLEX) and the key's cost budget, then
 *   graphql-jit (each kept document compiled once, then run as plain JavaScript), then the error
 *   policy: our errors pass with their codes, anything else is masked and logged.
 */
export function createExecutor(options: ExecutorOptions): Executor {
  const costOf = createCostAnalysis(options.schema);
  const compiled = new WeakSet<DocumentNode>();
  const execution = useExecution(costOf, compiled);
  const plugins = createPlugins(options.introspection, compiled, execution.plugin);
  // While execution is the list's only onExecute hook, the executor runs it directly: the same
  // steps without Envelop's per-hook callbacks and promise helpers (about 5 µs a request). A new
  // plugin with an onExecute hook turns this off, so every rule in the list still applies.
  const direct = plugins.filter((p) => p.onExecute).length === 1 ? execution.run : null;
  const getEnveloped = envelop({ plugins: [useEngine({ parse, validate, execute, subscribe, specifiedRules }), useSchema(options.schema), ...plugins] });
  // One enveloped instance for every request: no plugin here reads the initial context (the
  // request's context reaches execution as its contextValue), and making one per request cost
  // a dozen closures each time.
  const e = getEnveloped({});
  return {
    plugins,
    loadCompiler: loadJit,
    trust(document) {
      compiled.add(document);
    },
    check(document) {
      compiled.add(document);
      try {
        return e.validate(e.schema, document);
      } catch (err) {
        if (err instanceof GraphQLError) return [err];
        throw err;
      }
    },
    begin(context) {
      return {
        context,
        prepare(source) {
          let document: DocumentNode;
          try {
            document = e.parse(source);
          } catch (err) {
            return { errors: [err instanceof GraphQLError ? err : new GraphQLError((err as Error).message ?? 'Syntax error')], stage: 'parse' };
          }
          let errors: readonly GraphQLError[];
          try {
            errors = e.validate(e.schema, document);
          } catch (err) {
            // Armor's limits reject by throwing from a validation rule.
            if (!(err instanceof GraphQLError)) throw err;
            errors = [err];
          }
          return errors.length > 0 ? { errors, stage: 'validate' } : { document };
        },
        async execute(document, variables, operationName) {
          const args = { schema: e.schema, document, contextValue: context, variableValues: variables ?? undefined, operationName: operationName ?? undefined };
          if (!tracingOn()) return (await (direct ? direct(args) : e.execute(args))) as ExecutionResult;
          // Traced: the operation as one span (its name, type and cost), the loaders' batches under it.
          const operation = getOperationAST(document, operationName);
          const type = operation?.operation ?? 'query';
          const name = operation?.name?.value ?? '';
          return traced(`graphql ${type}${name ? ` ${name}` : ''}`, { 'graphql.operation.type': type, 'graphql.operation.name': name }, async (span) => {
            const result = (await (direct ? direct(args) : e.execute(args))) as ExecutionResult;
            span?.setAttribute('graphql.operation.cost', context.cost ?? 0);
            if (result.errors?.length) span?.setAttribute('graphql.errors', result.errors.length);
            return result;
          });
        },
      };
    },
  };
}

function createPlugins(introspection: boolean, compiled: WeakSet<DocumentNode>, execution: GraphQLPlugin): GraphQLPlugin[] {
  const options = { introspection };
  const validationMemo = useValidationMemo();
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
    useParserCache({
      // A kept document may be compiled by graphql-jit (its compiled form lives as long as it does).
      documentCache: boundedCache<DocumentNode>(CACHE_BYTES.documents, (key) => key.length * DOCUMENT_BYTES_PER_CHAR, (document) => compiled.add(document)),
      errorCache: boundedCache<Error>(CACHE_BYTES.parseErrors, (key) => key.length + 512),
    }),
    validationMemo.plugin,
    // @defer and @stream's validation rules (the directives are in the schema already), added only
    // when a document is validated, not on every request that the memo answers.
    whenValidating(useDeferStream(), validationMemo.has),
    ...armor.protect().plugins,
    ...(options.introspection ? [] : [useDisableIntrospection()]),
    execution,
  ];
}

/**
 * Documents longer than this are parsed, validated and run each time they come, never kept: a
 * client sending ever new large documents cannot fill memory with them (or with their compiled
 * forms). Our longest REST operation is about 1.5 KB; GraphiQL's introspection query about 2 KB.
 */
export const MAX_CACHED_DOCUMENT_CHARS = 16 * 1024;

/** Bytes the parse cache may hold for documents and for parse errors (estimated: a parsed document takes about ten times its text). */
const CACHE_BYTES = { documents: 16 * 1024 * 1024, parseErrors: 4 * 1024 * 1024 } as const;
const DOCUMENT_BYTES_PER_CHAR = 10;

/**
 * A cache for the parse and validation plugins, bounded in bytes (lru-cache's maxSize), that keeps
 * nothing whose key is over MAX_CACHED_DOCUMENT_CHARS and writes a key only once: those plugins
 * store their result again on every hit, and an LRU write cost more than the lookup it saved.
 * Entries never go stale (the schema is fixed for the process). `onKept` hears of each kept value.
 */
function boundedCache<V extends object>(maxBytes: number, bytesOf: (key: string) => number, onKept?: (value: V) => void) {
  const lru = new LRUCache<string, V>({ maxSize: maxBytes, sizeCalculation: (_v, key) => bytesOf(key) });
  return {
    get: (key: string) => lru.get(key),
    set: (key: string, value: V) => {
      if (key.length > MAX_CACHED_DOCUMENT_CHARS + 512 || lru.has(key)) return;
      lru.set(key, value);
      onKept?.(value);
    },
  };
}

/**
 * Validation results kept per parsed document. The parse cache hands out the same document for the
 * same text, and the schema and rules are fixed for the process, so a document's result never
 * changes; a WeakMap lives as long as its documents do (those the parse cache keeps, the REST
 * operations), so it is bounded with them. Envelop's validation cache keys each lookup by the
 * schema's hash, every rule's name and the query text, a string of about a kilobyte built on
 * every request.
 */
function useValidationMemo(): { plugin: Plugin<GraphQLContext>; has: (document: DocumentNode) => boolean } {
  const results = new WeakMap<DocumentNode, readonly GraphQLError[]>();
  const plugin: Plugin<GraphQLContext> = {
    onValidate({ params, validateFn, setValidationFn, setResult }) {
      const document = params.documentAST;
      const known = results.get(document);
      if (known) return setResult(known);
      setValidationFn((...args) => {
        const result = validateFn(...args);
        results.set(document, result);
        return result;
      });
    },
  };
  return { plugin, has: (document) => results.has(document) };
}

/** A plugin whose validation hook (rules it adds) runs only for documents the memo does not know yet. */
function whenValidating(plugin: GraphQLPlugin, known: (document: DocumentNode) => boolean): GraphQLPlugin {
  const onValidate = plugin.onValidate!;
  return { ...plugin, onValidate: (payload) => (known(payload.params.documentAST) ? undefined : onValidate(payload)) };
}

/**
 * Execution, as one plugin with one `onExecute` hook: Envelop builds a set of callbacks and
 * promise helpers for every hook of every request, which cost a REST lookup about 10 µs when
 * these three steps were three plugins (BENCHMARKS.md). In order:
 * - the cost limits, before anything runs (QUERY_TOO_COMPLEX), then the key's cost budget
 *   (429 RATE_LIMITED when it does not fit); the cost is recorded on the context;
 * - graphql-jit for documents that are kept (the parse cache's, the REST operations): compiling
 *   costs more than running once, and a one-off document would be compiled for nothing; others,
 *   and anything graphql-jit cannot compile, run on graphql-js;
 * - the error policy: errors we raise are GraphQLErrors with an `extensions.code` and pass as
 *   they are; anything else thrown in a resolver is a bug: the client sees "Unexpected error."
 *   with code INTERNAL_SERVER_ERROR, and the log gets the whole error with the request id.
 * Subscriptions (Yoga's SSE) run on graphql-js with the same error policy.
 */
function useExecution(costOf: ReturnType<typeof createCostAnalysis>, compiled: WeakSet<DocumentNode>): { plugin: Plugin<GraphQLContext>; run: (args: ExecutionArgs) => ExecutionResult | Promise<ExecutionResult> } {
  const jitted = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();

  function compiledFor(args: ExecutionArgs): CompiledQuery | null {
    if (!jit || !compiled.has(args.document)) return null;
    let byOperation = jitted.get(args.document);
    if (!byOperation) jitted.set(args.document, (byOperation = new Map()));
    const name = args.operationName ?? '';
    let query = byOperation.get(name);
    if (query === undefined) {
      const made = jit.compileQuery(args.schema, args.document, args.operationName ?? undefined, { disableLeafSerialization: mayDisableLeafSerialization(args.schema, args.document) });
      query = jit.isCompiledQuery(made) ? made : null;
      byOperation.set(name, query);
    }
    return query;
  }

  const masked = (ctx: GraphQLContext) => (result: ExecutionResult): ExecutionResult => maskResult(result, ctx);

  /** An incremental result (an async iterable of parts) masked part by part and cut at the deadline; a single result masked. */
  const maskedParts = (result: unknown, ctx: GraphQLContext) => {
    if (!isAsyncIterable(result)) return maskResult(result as ExecutionResult, ctx);
    // The first part carries the answer's extensions.cost, as a single answer does.
    let first = true;
    const mask = <R extends { errors?: readonly GraphQLError[]; extensions?: Record<string, unknown> }>(r: R): R => {
      const masked = maskResult(r, ctx);
      if (!first) return masked;
      first = false;
      return withCost(masked, ctx);
    };
    return cutAtDeadline(result as AsyncIterable<IncrementalPart>, ctx.signal, mask);
  };

  function executeMasked(args: ExecutionArgs): ExecutionResult | Promise<ExecutionResult> {
    const ctx = args.contextValue as GraphQLContext;
    const query = compiledFor(args);
    const result = (query ? query.query(args.rootValue, ctx, args.variableValues) : execute(args)) as ExecutionResult | Promise<ExecutionResult>;
    return result instanceof Promise ? result.then(masked(ctx)) : masked(ctx)(result);
  }

  /** The cost limits and the key's budget: the error to answer with, or null to go on. */
  function admit(args: ExecutionArgs): GraphQLError | null | Promise<GraphQLError | null> {
    const cost = costOf(args.document, args.variableValues);
    if (!cost) return null;
    const ctx = args.contextValue as GraphQLContext;
    ctx.cost = cost.complexity;
    // Most charges are settled at once (cost-budget.ts); only a draw from the limiter is a promise.
    return overLimit(cost) ?? ctx.costBudget.charge(ctx.budgetHolder, cost.complexity);
  }

  const refused = (error: GraphQLError): ExecutionResult => ({ errors: [error] });

  const plugin: Plugin<GraphQLContext> = {
    onExecute({ args, setExecuteFn, setResultAndStopExecution }) {
      const ctx = args.contextValue as GraphQLContext;
      // With @defer or @stream, under Yoga (a multipart/mixed client), its engine runs the document
      // and delivers the parts as they are ready; each part is masked, and the parts still to come
      // when the request's deadline passes are cut (incremental.ts).
      const incremental = ctx.incremental !== undefined && isIncremental(args.document);
      if (!incremental) setExecuteFn(executeMasked as typeof execute);
      else ctx.incremental!();
      const admitted = admit(args);
      const stopIfRefused = (error: GraphQLError | null) => void (error && setResultAndStopExecution(refused(error)));
      // Under Yoga (ctx.incremental is set there), answers get their extensions.cost here; the
      // fast path's handler adds it to its own.
      type Done = { result: unknown; setResult: (r: never) => void };
      const after = incremental
        ? { onExecuteDone: ({ result, setResult }: Done) => setResult(maskedParts(result, ctx) as never) }
        : ctx.incremental !== undefined
          ? { onExecuteDone: ({ result, setResult }: Done) => void (isAsyncIterable(result) || setResult(withCost(result as ExecutionResult, ctx) as never)) }
          : undefined;
      return admitted instanceof Promise ? admitted.then((e) => (stopIfRefused(e), after)) : (stopIfRefused(admitted), after);
    },
    onSubscribe({ args }) {
      const ctx = args.contextValue as GraphQLContext;
      return {
        onSubscribeResult: (payload) =>
          handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => setResult(masked(ctx)(result))),
      };
    },
  };

  /** What the plugin does to an operation, called directly: the same steps, without Envelop's per-hook machinery. */
  function run(args: ExecutionArgs): ExecutionResult | Promise<ExecutionResult> {
    const admitted = admit(args);
    if (admitted instanceof Promise) return admitted.then((error) => (error ? refused(error) : executeMasked(args)));
    return admitted ? refused(admitted) : executeMasked(args);
  }

  return { plugin, run };
}

function maskResult<R extends { errors?: readonly GraphQLError[] }>(result: R, ctx: GraphQLContext): R {
  return result.errors?.length ? { ...result, errors: result.errors.map((e) => maskError(e, ctx)) } : result;
}


function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** Whether a document asks for incremental delivery anywhere (remembered per document). */
const incrementalDocuments = new WeakMap<DocumentNode, boolean>();
function isIncremental(document: DocumentNode): boolean {
  let known = incrementalDocuments.get(document);
  if (known === undefined) {
    known = false;
    visit(document, {
      Directive(node) {
        if (node.name.value === 'defer' || node.name.value === 'stream') {
          known = true;
          return BREAK;
        }
      },
    });
    incrementalDocuments.set(document, known);
  }
  return known;
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
