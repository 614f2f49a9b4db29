import { BREAK, execute, visit, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import { traced, tracingOn } from '../../telemetry/trace.js';
import { cutAtDeadline, type IncrementalPart } from '../incremental.js';
import { mayDisableLeafSerialization } from '../leaf-serialization.js';
import { subscribeShared } from '../shared-events.js';
import type { Operation, Outcome, Step } from '../operation.js';

type Jit = typeof import('graphql-jit');
type IncrementalEngine = typeof import('@graphql-tools/executor');

/**
 * Runs the operation with the engine it needs:
 * - a subscription: graphql-js's subscribe, each event executed once for all who share it
 *   (shared-events.ts), a stream of results (the transports that can carry one
 *   are the only ones the select-operation step lets through);
 * - @defer or @stream on a transport that streams: @graphql-tools/executor (the incremental
 *   delivery engine Yoga uses), its parts cut at the request's deadline;
 * - anything else: graphql-jit for documents that are kept (the parse cache's, the server's own:
 *   each compiled once, then run as plain JavaScript; compiling costs more than running once, so
 *   a one-off document is not compiled), graphql-js otherwise. @defer and @stream are then
 *   answered in the one result, as the spec allows.
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
  private readonly compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();

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
    if (!jit || !(own || this.kept.has(args.document))) return null;
    let byOperation = this.compiled.get(args.document);
    if (!byOperation) this.compiled.set(args.document, (byOperation = new Map()));
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
