import type { Freshness } from '../../data/data-version.js';
import type { z } from 'zod';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';

/**
 * The operation's data as `shape` sees it: the router shapes only answers without errors, and a
 * root field is null only with an error, so the root fields are there. (Nested nullable fields,
 * such as a history that failed, stay nullable.)
 */
export type AnsweredData<R> = { [K in keyof R]: NonNullable<R[K]> };

/**
 * One documented REST path: its parameters (the shared zod schema over path and query values),
 * the one GraphQL operation that answers it (typed by codegen from src/rest/operations/), and how
 * the documented response is shaped from the operation's data.
 */
export interface RestRoute<P extends z.ZodType = z.ZodType, R = unknown, B extends z.ZodType = z.ZodType> {
  path: string;
  /** GET unless said otherwise; a documented POST takes no body. */
  method?: 'GET' | 'POST';
  params: P;
  // biome-ignore lint/suspicious/noExplicitAny: each route's operation has variables of its own type; any lets the table hold them all.
  operation: TypedDocumentNode<R, any>;
  /** GraphQL variables from the validated parameters; by default the parameters themselves. */
  variables?: (params: z.output<P>) => Record<string, unknown>;
  /** The documented body of a 200 (src/rest/responses.ts): what `shape` returns, and what /openapi.json says. */
  response: B;
  shape: (data: AnsweredData<R>, params: z.output<P>) => z.input<B>;
  freshness: Freshness;
  /** A sentence for the API description (/openapi.json, /docs). */
  summary: string;
  /**
   * For a list: the field of the documented body that holds its items. The path then answers
   * `Accept: text/csv` and `application/x-ndjson` too, with those items (list-formats.ts).
   */
  list?: string;
}

/** Keeps each route's parameter and data types attached to its own callbacks inside a heterogeneous table. */
// biome-ignore lint/suspicious/noExplicitAny: the table is heterogeneous in its data types (see above).
export const route = <P extends z.ZodType, R, B extends z.ZodType>(r: RestRoute<P, R, B>): RestRoute<z.ZodType, any> =>
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  r as unknown as RestRoute<z.ZodType, any>;
