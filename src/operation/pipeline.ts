import type { DocumentNode, GraphQLError, GraphQLSchema } from 'graphql';
import type { GraphQLContext } from '../graphql/context.js';
import type { Operation, OperationRequest, Outcome, Step, Transport } from './operation.js';
import type { PersistedDocuments } from './persisted-documents.js';
import { budgetStep } from './steps/budget.js';
import { costStep } from './steps/cost.js';
import { csrfStep } from './steps/csrf.js';
import { ExecuteStep } from './steps/execute.js';
import { finalizeStep } from './steps/finalize.js';
import { introspectionErrors, noIntrospectionStep } from './steps/introspection.js';
import { limitErrors, limitsStep } from './steps/limits.js';
import { parseStep } from './steps/parse.js';
import { rememberPersistedStep, resolveDocumentStep } from './steps/resolve-document.js';
import { responseCacheStep, type ResponseCacheDeps } from './steps/response-cache.js';
import { selectOperationStep } from './steps/select-operation.js';
import { trustedOnlyStep } from './steps/trusted-only.js';
import { specErrors, validateStep } from './steps/validate.js';

export interface PipelineOptions extends ResponseCacheDeps {
  schema: GraphQLSchema;
  /** Introspection and "did you mean" hints (off by default when NODE_ENV=production). */
  introspection: boolean;
  /** Where documents are found by text, hash or id. */
  documents: PersistedDocuments;
  /** GRAPHQL_TRUSTED_ONLY=on: only the manifest's documents and the server's own run. */
  trustedOnly: boolean;
}

export interface Pipeline {
  /** The rules in the order they run. */
  readonly steps: readonly Step[];
  /** One operation through every step: what to answer, for the transport to encode. */
  run(request: OperationRequest, transport: Transport, context: GraphQLContext): Outcome | Promise<Outcome>;
  /**
   * A kept answer for a document of the server's own, from the response-cache step's own lookup:
   * every step before it passes such a document by construction, so a REST route's GET may ask
   * here before it makes a context and runs the list. Undefined when there is none (then run).
   */
  keptForOwn(request: OperationRequest): Outcome | undefined;
  /** Loads graphql-jit (once; the server calls it just after it listens). */
  loadCompiler(): Promise<void>;
}

/**
 * The document rules (limits, validation, introspection) on a document, all of them: the server
 * trusts its own operations (the REST routes') without checking them at start, and the suite
 * checks each of them here (test/unit/rest-shapes.test.ts).
 */
export async function checkDocument(schema: GraphQLSchema, document: DocumentNode, introspection: boolean): Promise<readonly GraphQLError[]> {
  const errors = limitErrors(schema, document);
  if (errors.length > 0) return errors;
  return [...(await specErrors(schema, document)), ...(introspection ? [] : introspectionErrors(schema, document))];
}

/**
 * The one way a GraphQL operation runs, whatever brought it: JSON POST, GET, the other bodies, SSE,
 * multipart, WebSocket, a batch's items, the REST routes and the warm-up all decode their request
 * into an OperationRequest, run it here, and encode the Outcome. Every rule about GraphQL requests
 * is one step in this list, in one file under steps/; nothing outside the list decides whether a
 * document runs. Steps run in order until one answers (a refusal, a kept answer, or execution);
 * then the `done` hooks of the steps that ran, in reverse (the response cache stores, finalize
 * finishes).
 */
export function createPipeline(options: PipelineOptions): Pipeline {
  const execute = new ExecuteStep(options.schema);
  const responseCache = responseCacheStep(options);
  const steps: Step[] = [
    finalizeStep({ hideSuggestions: !options.introspection }),
    csrfStep,
    resolveDocumentStep(options.documents),
    ...(options.trustedOnly ? [trustedOnlyStep] : []),
    parseStep((document) => execute.keep(document)),
    limitsStep(options.schema),
    validateStep(options.schema),
    ...(options.introspection ? [] : [noIntrospectionStep(options.schema)]),
    rememberPersistedStep,
    selectOperationStep,
    responseCache,
    costStep(options.schema),
    budgetStep,
    execute,
  ];

  const forRequests = sequence(steps);
  // The server's own documents (the REST routes', the warm-up's) pass some rules by construction
  // (trusted, checked when generated, never cross-site): their list leaves those out.
  const forOwn = sequence(steps.filter((step) => !step.passedByOwn));

  return {
    steps,
    run: (request, transport, context) => (request.own ? forOwn : forRequests)(newOperation(request, transport, context)),
    keptForOwn: (request) => responseCache.lookupOwn(request),
    loadCompiler: () => execute.loadCompiler(),
  };
}

/**
 * A list of steps as one function: their hooks taken out once into arrays of closures, each over
 * its own step, so a request calls each hook directly rather than looking it up on a dozen
 * objects of different shapes (a megamorphic load per step).
 */
function sequence(steps: readonly Step[]): (op: Operation) => Outcome | Promise<Outcome> {
  const runs = steps.map((step) => (step.run ? (op: Operation) => step.run!(op) : null));
  const dones = steps.map((step) => (step.done ? (op: Operation, outcome: Outcome) => step.done!(op, outcome) : null));

  function unwind(op: Operation, last: number, outcome: Outcome): Outcome {
    for (let i = last; i >= 0; i--) {
      const done = dones[i];
      if (done) outcome = done(op, outcome);
    }
    return outcome;
  }

  function runFrom(op: Operation, first: number): Outcome | Promise<Outcome> {
    for (let i = first; i < runs.length; i++) {
      const run = runs[i];
      if (!run) continue;
      const answered = run(op);
      if (answered === undefined) continue;
      if (answered instanceof Promise) return answered.then((outcome) => (outcome === undefined ? runFrom(op, i + 1) : unwind(op, i, outcome)));
      return unwind(op, i, answered);
    }
    throw new Error('the pipeline ended without an answer: its last step must always answer');
  }

  return (op) => runFrom(op, 0);
}

/**
 * An operation with every field it will have, set from the start: one object shape whatever
 * steps fill it in, so the steps that read it see one shape (not one per path through the list).
 */
export function newOperation(request: OperationRequest, transport: Transport, context: GraphQLContext): Operation {
  return {
    request,
    transport,
    context,
    source: undefined,
    document: undefined,
    checked: false,
    definition: undefined,
    variables: undefined,
    operationName: undefined,
    cacheKey: undefined,
  };
}
