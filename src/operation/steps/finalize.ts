import { GraphQLError, type ExecutionResult } from 'graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import type { IncrementalPart } from '../incremental.js';
import { mapParts } from '../map-parts.js';
import type { Operation, Outcome, Step } from '../operation.js';

export const UNEXPECTED_MESSAGE = 'Unexpected error.';
/** A stream that failed in a way nobody planned for ends with this part (its cause goes to the log). */
export const UNEXPECTED_RESULT = { errors: [{ message: UNEXPECTED_MESSAGE, extensions: { code: 'INTERNAL_SERVER_ERROR' } }] } as const;

const SUGGESTION = /\s*Did you mean [^?]*\?/g;

/**
 * The last word on every outcome, whichever step gave it (first in the list, so its `done` runs
 * last):
 * - the error policy: errors we raise are GraphQLErrors with an `extensions.code` and pass as they
 *   are; anything else thrown in a resolver is a bug: the client sees "Unexpected error." with code
 *   INTERNAL_SERVER_ERROR, and the log gets the whole error with the request id;
 * - every error leaves with a code (an execution error without one is the request's: bad
 *   variables, BAD_USER_INPUT) and without internals (no `originalError` extension); with
 *   introspection off, no "Did you mean …?" hint (it names fields the schema does not show);
 * - the answer's `extensions.cost` (what the cost step found, and the key's budget after it) and
 *   `extensions.requestId`; in a stream, the first part carries them, every part is masked.
 * A kept answer was serialized without errors and without anything of one request: it passes.
 */
export function finalizeStep(options: { hideSuggestions: boolean }): Step {
  const finishError = (e: GraphQLError, ctx: GraphQLContext, codeForUncoded: string): GraphQLError => {
    const error = isOurs(e) ? e : unexpected(e, ctx);
    // graphql-jit's errors may have no extensions at all.
    const given = (error.extensions ?? {}) as Record<string, unknown>;
    const code = given.code;
    const hinted = options.hideSuggestions && SUGGESTION.test(error.message);
    SUGGESTION.lastIndex = 0;
    if (code !== undefined && !hinted && !('originalError' in given)) return error;
    const { originalError: _o, ...extensions } = given;
    return copyError(error, hinted ? error.message.replace(SUGGESTION, '') : error.message, { ...extensions, code: code ?? codeForUncoded });
  };

  /** An execution error without a code is the request's (variables that do not coerce): BAD_USER_INPUT. */
  const finishResult = <R extends { errors?: readonly GraphQLError[]; extensions?: Record<string, unknown> }>(
    result: R,
    op: Operation,
    first: boolean,
    codeForUncoded = 'BAD_USER_INPUT',
  ): R => {
    const ctx = op.context;
    const errors = result.errors?.map((e) => finishError(e, ctx, codeForUncoded));
    if (!first) return errors ? { ...result, errors } : result;
    // One literal per object, no spread of an empty one: this runs for every answer.
    const ours = ownExtensions(ctx);
    const extensions = result.extensions ? { ...result.extensions, ...ours } : ours;
    return errors ? { ...result, errors, extensions } : { ...result, extensions };
  };

  const finishParts = (parts: AsyncIterable<ExecutionResult | IncrementalPart>, op: Operation) => {
    let first = true;
    return mapParts(parts, (part) => {
      const finished = finishResult(part, op, first);
      first = false;
      const pieces = (finished as IncrementalPart).incremental;
      return pieces ? { ...finished, incremental: pieces.map((piece) => finishResult(piece, op, false)) } : finished;
    });
  };

  return {
    name: 'finalize',
    done(op, outcome): Outcome {
      switch (outcome.kind) {
        case 'kept':
          return outcome;
        case 'result': {
          const result = outcome.result;
          // Most answers: data alone. One literal of a fixed shape, where the spread's copy of
          // results of every source (graphql-jit's, graphql-js's, a batch's) took the generic path.
          if (result.errors === undefined && result.extensions === undefined)
            return { kind: 'result', result: { data: result.data, extensions: ownExtensions(op.context) } };
          return { kind: 'result', result: finishResult(result, op, true) };
        }
        case 'stream':
          return { ...outcome, parts: finishParts(outcome.parts, op) };
        case 'refused': {
          const result = finishResult<ExecutionResult>({ errors: outcome.errors }, op, true, 'BAD_REQUEST');
          return { ...outcome, errors: result.errors!, extensions: result.extensions };
        }
      }
    },
  };
}

/**
 * The answer's own extensions: `cost`, what the cost analysis gave (`requestedQueryCost`) and the
 * key's cost budget after this request (`throttleStatus`, in the shape Shopify's API uses), and
 * `requestId`.
 */
function ownExtensions(ctx: GraphQLContext): { cost?: unknown; requestId: string } {
  if (ctx.cost === undefined) return { requestId: ctx.requestId };
  const cost = ctx.budgetHolder ? { requestedQueryCost: ctx.cost, throttleStatus: ctx.costBudget.status(ctx.budgetHolder) } : { requestedQueryCost: ctx.cost };
  return { cost, requestId: ctx.requestId };
}

function isOurs(error: unknown): boolean {
  if (!(error instanceof GraphQLError)) return false;
  return error.originalError ? isOurs(error.originalError) : true;
}

function unexpected(error: GraphQLError, ctx: GraphQLContext): GraphQLError {
  ctx.logger.error({ err: error.originalError ?? error, path: error.path }, 'unexpected error in a resolver');
  return new GraphQLError(UNEXPECTED_MESSAGE, { path: error.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } });
}

/** A copy of an error with other text or extensions (errors from graphql-jit have read-only extensions). */
function copyError(e: GraphQLError, message: string, extensions: Record<string, unknown>): GraphQLError {
  const out = new GraphQLError(message, { path: e.path, originalError: e.originalError, extensions });
  if (e.locations) (out as { locations?: unknown }).locations = e.locations;
  return out;
}
