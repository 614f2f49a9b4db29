import { BREAK, execute, visit, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';
import { traced, tracingOn } from '../../telemetry/trace.js';
import { cutAtDeadline, type IncrementalPart } from '../incremental.js';
import { mayDisableLeafSerialization } from '../leaf-serialization.js';
import { subscribeShared } from '../shared-events.js';
import { INTROSPECTION_COSTS } from './introspection-cost.js';
import type { Operation, Outcome, Step } from '../operation.js';

type Jit = typeof import('graphql-jit');
type IncrementalEngine = typeof import('@graphql-tools/executor');

/** The clients' documents kept compiled at once (a compiled query holds far more memory than its text). */
export const MAX_COMPILED_DOCUMENTS = 100;

/**
 * Runs the operation with the engine it needs:
 * - a subscription: graphql-js's subscribe, each event executed once for all who share it
 *   (shared-events.ts), a stream of results (the transports that can carry one
 *   are the only ones the select-operation step lets through);
 * - @defer or @stream on a transport that streams: @graphql-tools/executor (the incremental
 *   delivery engine Yoga uses), its parts cut at the request's deadline;
 * - anything else: graphql-jit for the server's own documents and for a client's kept by the parse
 *   cache once they run a second time (compiled once, then run as plain JavaScript; compiling
 *   costs more than running once, and a compiled query holds far more memory than its text, so a
 *   one-off document is not compiled, and at most MAX_COMPILED_DOCUMENTS of the clients' are kept,
 *   the least recently run out first), graphql-js otherwise and for introspection (a deep
 *   selection under `__schema` took seconds to compile). @defer and @stream are then answered in
 *   the one result, as the spec allows.
 * graphql-jit and the incremental engine load on first use (the server loads the compiler just
 * after it listens): the first answers after start need neither.
 */
export class ExecuteStep implements Step {
  readonly name = 'execute';
  private jit: Jit | null = null;
  private jitLoading: Promise<void> | null = null;
  private incrementalEngine: Promise<IncrementalEngine> | null = null;
  /** Documents worth compiling: those the parse cache keeps, and the server's own. */
  private readonly kept = new WeakSet<DocumentNode>();
  /** The clients' kept documents that have run once: compiled when they run again. */
  private readonly ranOnce = new WeakSet<DocumentNode>();
  private readonly compiledOwn = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();
  private readonly compiledClients = new LRUCache<DocumentNode, Map<string, CompiledQuery | null>>({ max: MAX_COMPILED_DOCUMENTS });

  constructor(private readonly schema: GraphQLSchema) {}

  keep(document: DocumentNode): void {
    this.kept.add(document);
  }

  loadCompiler(): Promise<void> {
    return (this.jitLoading ??= import('graphql-jit').then((m) => void (this.jit = m)));
  }

  run(op: Operation): Outcome | Promise<Outcome> {
    if (!tracingOn()) return this.execute(op);
    // Traced: the operation as one span (its name, type and cost), the loaders' batches under it.
    const type = op.definition!.operation;
    const name = op.definition!.name?.value ?? '';
    return traced(`graphql ${type}${name ? ` ${name}` : ''}`, { 'graphql.operation.type': type, 'graphql.operation.name': name }, async (span) => {
      const outcome = await this.execute(op);
      span?.setAttribute('graphql.operation.cost', op.context.cost ?? 0);
      if (outcome.kind === 'result' && outcome.result.errors?.length) span?.setAttribute('graphql.errors', outcome.result.errors.length);
      return outcome;
    });
  }

  private execute(op: Operation): Outcome | Promise<Outcome> {
    const args: ExecutionArgs = {
      schema: this.schema,
      document: op.document!,
      contextValue: op.context,
      variableValues: op.variables,
      operationName: op.operationName,
    };
    if (op.definition!.operation === 'subscription') return settle(subscribeShared(args, op.definition!), false);
    if (op.transport.streams && isIncremental(op.document!)) {
      return (this.incrementalEngine ??= import('@graphql-tools/executor')).then(({ normalizedExecutor }) => {
        const result = normalizedExecutor(args) as ExecutionResult | AsyncIterable<IncrementalPart> | Promise<ExecutionResult | AsyncIterable<IncrementalPart>>;
        return settle(result, true, op.context.signal);
      });
    }
    const query = this.compiledFor(args, op.checked === true);
    const result = (query ? query.query(undefined, op.context, op.variables) : execute(args)) as ExecutionResult | Promise<ExecutionResult>;
    return result instanceof Promise ? result.then(asResult) : asResult(result);
  }

  private compiledFor(args: ExecutionArgs, own: boolean): CompiledQuery | null {
    const jit = this.jit;
    const document = args.document;
    if (!own) {
      if (!this.kept.has(document) || namesIntrospection(document)) return null;
      if (!this.ranOnce.has(document)) {
        this.ranOnce.add(document);
        return null;
      }
    }
    if (!jit) return null;
    const store = own ? this.compiledOwn : this.compiledClients;
    let byOperation = store.get(document);
    if (!byOperation) store.set(document, (byOperation = new Map()));
    const name = args.operationName ?? '';
    let query = byOperation.get(name);
    if (query === undefined) {
      const made = jit.compileQuery(args.schema, args.document, args.operationName ?? undefined, {
        disableLeafSerialization: mayDisableLeafSerialization(args.schema, args.document),
      });
      query = jit.isCompiledQuery(made) ? made : null;
      byOperation.set(name, query);
    }
    return query;
  }
}

const asResult = (result: ExecutionResult): Outcome => ({ kind: 'result', result });

type Streamed = ExecutionResult | AsyncIterable<ExecutionResult | IncrementalPart>;

/** A single result, or a stream (an incremental one is cut at the request's deadline). */
function settle(result: Streamed | Promise<Streamed>, incremental: boolean, signal?: AbortSignal): Outcome | Promise<Outcome> {
  if (result instanceof Promise) return result.then((r) => settle(r, incremental, signal));
  if (!isAsyncIterable(result)) return asResult(result);
  return {
    kind: 'stream',
    incremental,
    parts: incremental ? cutAtDeadline(result as AsyncIterable<IncrementalPart>, signal) : (result as AsyncIterable<ExecutionResult>),
  };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** Whether a document selects `__schema` or `__type` anywhere (remembered per document). */
const introspecting = new WeakMap<DocumentNode, boolean>();
function namesIntrospection(document: DocumentNode): boolean {
  let known = introspecting.get(document);
  if (known === undefined) {
    known = false;
    visit(document, {
      Field(node) {
        if (!Object.hasOwn(INTROSPECTION_COSTS, node.name.value)) return undefined;
        known = true;
        return BREAK;
      },
    });
    introspecting.set(document, known);
  }
  return known;
}

/** Whether a document asks for incremental delivery anywhere (remembered per document). */
const incrementalDocuments = new WeakMap<DocumentNode, boolean>();
export function isIncremental(document: DocumentNode): boolean {
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
