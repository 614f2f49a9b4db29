import { GraphQLError, type ExecutionResult } from 'graphql';
import { UNEXPECTED_MESSAGE } from './executor.js';

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
