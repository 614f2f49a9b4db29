import {
  createSourceEventStream,
  execute,
  GraphQLError,
  Kind,
  visit,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { SHARED_EVENTS } from '../graphql/field-extensions.js';
import { DONE } from './map-parts.js';

/*
 * Subscribers of a field that shares its events (graphql/field-extensions.ts), the same document,
 * operation and selection variables get one execution of each event, and the one result (its JSON
 * made once too: transports/graphql/part-json.ts).
 */

/** Groups one document may have (distinct variable values in its selection); past it, each subscriber executes its own. */
const MAX_GROUPS_PER_DOCUMENT = 256;

/**
 * Subscribers who would get the same result of an event, and those results, by event: kept only
 * while the group has more than one subscriber (one alone keeps nothing it would not share).
 */
interface Group {
  members: number;
  results: WeakMap<object, ExecutionResult | Promise<ExecutionResult>>;
}

/** The groups of each document, by operation name and selection variables. */
const groups = new WeakMap<DocumentNode, Map<string, Group>>();

/**
 * graphql-js's subscribe (the source stream from the field's resolver, each event executed as the
 * root value), with each event executed once per group when the field shares its events.
 */
export function subscribeShared(args: ExecutionArgs, definition: OperationDefinitionNode): Promise<ExecutionResult | AsyncIterable<ExecutionResult>> {
  return Promise.resolve(createSourceEventStream(args)).then((source) => {
    if (!isAsyncIterable(source)) return source;
    const group = groupOf(args, definition);
    const executeEvent = (event: unknown) => execute({ ...args, rootValue: event }) as ExecutionResult | Promise<ExecutionResult>;
    const resultOf = (event: unknown) => {
      if (!group || group.members < 2 || typeof event !== 'object' || event === null) return executeEvent(event);
      let result = group.results.get(event);
      if (!result) group.results.set(event, (result = executeEvent(event)));
      return result;
    };
    if (!group) return new ExecutedParts(source as AsyncIterable<unknown>, resultOf);
    group.members++;
    let left = false;
    return new ExecutedParts(source as AsyncIterable<unknown>, resultOf, () => {
      if (!left) group.members--;
      left = true;
    });
  });
}

/** The group this subscriber belongs to, or null when its field does not share events. */
function groupOf(args: ExecutionArgs, definition: OperationDefinitionNode): Group | null {
  const root = definition.selectionSet.selections[0];
  if (definition.selectionSet.selections.length !== 1 || root?.kind !== Kind.FIELD) return null;
  if (!sharesEvents(args.schema, root.name.value)) return null;
  let byKey = groups.get(args.document);
  if (!byKey) groups.set(args.document, (byKey = new Map()));
  const key = `${definition.name?.value ?? ''}\n${JSON.stringify(selectionVariables(args.document, definition, args.variableValues ?? {}))}`;
  let group = byKey.get(key);
  if (!group) {
    if (byKey.size >= MAX_GROUPS_PER_DOCUMENT) return null;
    byKey.set(key, (group = { members: 0, results: new WeakMap() }));
  }
  return group;
}

function sharesEvents(schema: GraphQLSchema, fieldName: string): boolean {
  return schema.getSubscriptionType()?.getFields()[fieldName]?.extensions?.[SHARED_EVENTS] === true;
}

/**
 * The values of the variables a result can depend on: every variable the operation and the
 * document's fragments use, except in the root field's own arguments, which choose the events
 * (which resorts), not what is made of one.
 */
function selectionVariables(document: DocumentNode, definition: OperationDefinitionNode, values: Record<string, unknown>): unknown[] {
  const used: string[] = [];
  for (const fragment of document.definitions)
    if (fragment.kind === Kind.FRAGMENT_DEFINITION) visit(fragment, { Variable: (v) => void used.push(v.name.value) });
  const root = definition.selectionSet.selections[0]!;
  visit(definition, {
    Field(node) {
      if (node !== root) return undefined;
      // The root field's arguments are skipped; its directives and selection are not.
      for (const directive of node.directives ?? []) visit(directive, { Variable: (v) => void used.push(v.name.value) });
      if (node.selectionSet) visit(node.selectionSet, { Variable: (v) => void used.push(v.name.value) });
      return false;
    },
    Variable(node) {
      used.push(node.name.value);
    },
    VariableDefinition: () => false,
  });
  return [...new Set(used)].sort().map((name) => [name, values[name]]);
}

/**
 * Each event of the source as its result, awaited when its execution awaited something; `ended`
 * hears the end. A source that fails (a live feed cutting a slow reader) gives its failure as the
 * last part, an error result (masked by finalize unless it is one of ours), and the stream ends,
 * on every transport alike, instead of breaking the connection it runs on. One layer of promises
 * a part, its handlers made once (a class, as map-parts.ts says why): this runs for every
 * subscriber of every event.
 */
class ExecutedParts implements AsyncIterableIterator<ExecutionResult> {
  private readonly events: AsyncIterator<unknown>;
  private readonly executed: (r: IteratorResult<unknown>) => IteratorResult<ExecutionResult> | Promise<IteratorResult<ExecutionResult>>;
  private failed = false;
  private readonly lastPart = (err: unknown): IteratorResult<ExecutionResult> => {
    this.failed = true;
    this.ended?.();
    const error = err instanceof GraphQLError ? err : new GraphQLError('a subscription failed', { originalError: err as Error });
    return { done: false, value: { errors: [error] } };
  };

  constructor(
    source: AsyncIterable<unknown>,
    resultOf: (event: unknown) => ExecutionResult | Promise<ExecutionResult>,
    private readonly ended?: () => void,
  ) {
    this.events = source[Symbol.asyncIterator]();
    this.executed = (r) => {
      if (r.done) {
        ended?.();
        return DONE;
      }
      const result = resultOf(r.value);
      return result instanceof Promise ? result.then((value) => ({ done: false, value })) : { done: false, value: result };
    };
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    return this.failed ? Promise.resolve(DONE) : this.events.next().then(this.executed, this.lastPart);
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    this.ended?.();
    return Promise.resolve(this.events.return?.()).then(() => DONE);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ExecutionResult> {
    return this;
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
