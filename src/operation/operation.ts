import type { DocumentNode, ExecutionResult, GraphQLError, OperationDefinitionNode } from 'graphql';
import type { GraphQLContext } from '../graphql/context.js';
import type { IncrementalPart } from './incremental.js';

/**
 * How a request reached the pipeline. A transport (an adapter) decodes its request into an
 * OperationRequest and says what it can do; the rules decide the rest.
 */
export interface Transport {
  /** For traces and the suite's matrix. */
  readonly name: 'json' | 'sse' | 'multipart' | 'ws' | 'batch' | 'rest' | 'mcp' | 'warm-up';
  /** Can deliver a stream of results: subscriptions, and @defer / @stream as parts. */
  readonly streams: boolean;
}

export const TRANSPORTS = {
  /** One JSON answer: POST (application/json, application/graphql+json, application/graphql) or GET. */
  json: { name: 'json', streams: false },
  sse: { name: 'sse', streams: true },
  multipart: { name: 'multipart', streams: true },
  ws: { name: 'ws', streams: true },
  batch: { name: 'batch', streams: false },
  rest: { name: 'rest', streams: false },
  /** MCP's tool calls and resource reads, and the subscription behind its resource updates. */
  mcp: { name: 'mcp', streams: true },
  warmUp: { name: 'warm-up', streams: false },
} as const satisfies Record<string, Transport>;

/** One GraphQL request, as a transport decoded it (the GraphQL-over-HTTP request parameters). */
export interface OperationRequest {
  query?: unknown;
  documentId?: unknown;
  operationName?: unknown;
  variables?: unknown;
  extensions?: unknown;
  /**
   * A document of the server's own (a REST route's operation): trusted, and validated against the
   * schema when it was generated (test/unit/rest-shapes.test.ts checks each with these rules).
   */
  own?: DocumentNode;
  /** It came as an HTTP GET: a mutation may not run, and a cross-site page could have sent it. */
  overGet?: boolean;
  /** The request carries a header a cross-site page cannot send (x-api-key, authorization, x-graphql-yoga-csrf). */
  crossSiteSafe?: boolean;
  /**
   * The answer may be kept as a version of the data (a GET): the transport's key for it (without
   * the data version, which the response-cache step adds) and how the transport writes it.
   */
  keep?: { key: string; serialize: (data: unknown, cost: number) => string };
  /** Set by Pipeline.keptForOwn when it found no kept answer: the key it looked under, for the store. */
  missedKey?: string;
}

/** The document a request names, once found (resolve-document). */
export interface Source {
  text: string;
  /** The document's id for cache keys (its SHA-256, or its trusted id), made when first asked. */
  id: () => string;
  /** In the trusted documents manifest, or the server's own. */
  trusted: boolean;
  /** An automatic persisted query sent with its text: kept once it has validated. */
  store?: () => void;
}

/** One operation on its way through the steps: what each step found, for the steps after it. */
export interface Operation {
  readonly request: OperationRequest;
  readonly transport: Transport;
  readonly context: GraphQLContext;
  source?: Source;
  document?: DocumentNode;
  /** Checked by the schema's rules already (a REST route's operation): parse and validation steps skip it. */
  checked?: boolean;
  /** The operation the request runs (operationName's, or the only one). */
  definition?: OperationDefinitionNode;
  variables?: Readonly<Record<string, unknown>>;
  operationName?: string;
  /** The response-cache key, when the answer may be kept. */
  cacheKey?: string;
}

/**
 * What the pipeline answers: a refusal before anything ran, a result, a kept answer (already
 * serialized), or a stream of results. Transports encode it; they decide nothing about it.
 */
export type Outcome =
  | {
      kind: 'refused';
      errors: readonly GraphQLError[];
      /** The status for a client of application/graphql-response+json (GraphQL over HTTP). */
      status: number;
      /** The status for a plain application/json client, when the spec gives it another (200 for a request error). */
      jsonStatus?: number;
      /** Response headers that go with it (Allow, Retry-After, RateLimit). */
      headers?: readonly string[];
      /** Set by the finalize step: what the answer's `extensions` carry (cost, requestId). */
      extensions?: Record<string, unknown>;
    }
  | { kind: 'result'; result: ExecutionResult }
  | {
      kind: 'kept';
      key: string;
      answer: KeptAnswer;
      /** How long the client may keep it (the data's next known change: data-version.ts). */
      cacheControl: string;
    }
  | { kind: 'stream'; parts: AsyncIterable<ExecutionResult | IncrementalPart>; incremental: boolean };

/** A serialized answer as the response cache keeps it (http/response-cache.ts's Representations). */
export interface KeptAnswer {
  readonly body: string | Buffer;
}

export type Refused = Extract<Outcome, { kind: 'refused' }>;

/**
 * One rule: `run` in list order before execution (an outcome ends the operation there: a refusal,
 * or an answer found); `done` in reverse order on whatever outcome came (a store, the finishing).
 */
export interface Step {
  readonly name: string;
  /**
   * The server's own documents (a REST route's, the warm-up's) pass this rule by construction:
   * trusted, validated when they were generated, never sent by a cross-site page. The pipeline
   * leaves it out of their list.
   */
  readonly passedByOwn?: true;
  run?(op: Operation): Outcome | undefined | Promise<Outcome | undefined>;
  done?(op: Operation, outcome: Outcome): Outcome;
}

/** A refusal with one error; `jsonStatus` 200 is for the request errors GraphQL over HTTP answers with 200 to plain JSON clients. */
export function refuse(error: GraphQLError, status: number, jsonStatus = status, headers?: readonly string[]): Refused {
  return { kind: 'refused', errors: [error], status, jsonStatus, ...(headers ? { headers } : {}) };
}
