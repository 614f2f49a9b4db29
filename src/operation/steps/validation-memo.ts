import { GraphQLError, type DocumentNode } from 'graphql';
import { refuse, type Refused, type Step } from '../operation.js';

export const VALIDATION_FAILED = 'GRAPHQL_VALIDATION_FAILED';

/**
 * A step that checks a document once: its verdict is remembered per document object (the parse
 * step hands out one object per text, and the schema and rules are fixed for the process), so a
 * repeated document costs a WeakMap lookup. A WeakMap lives as long as its documents do, so it is
 * bounded with the parse cache. Documents of the server's own (`checked`) were validated when
 * they were generated and are not checked again. The errors leave with `code`.
 */
export function checkedOnce(name: string, check: (document: DocumentNode) => readonly GraphQLError[] | Promise<readonly GraphQLError[]>, code: string): Step {
  const verdicts = new WeakMap<DocumentNode, Refused | null>();
  const verdictOf = (errors: readonly GraphQLError[]): Refused | null =>
    errors.length === 0 ? null : { ...refuse(errors[0]!, 400, 200), errors: errors.map((e) => withCode(e, code)) };
  return {
    name,
    passedByOwn: true,
    run(op) {
      if (op.checked) return undefined;
      const document = op.document!;
      const known = verdicts.get(document);
      if (known !== undefined) return known ?? undefined;
      const errors = check(document);
      const remember = (found: readonly GraphQLError[]) => {
        const verdict = verdictOf(found);
        verdicts.set(document, verdict);
        return verdict ?? undefined;
      };
      return Array.isArray(errors) ? remember(errors) : (errors as Promise<readonly GraphQLError[]>).then(remember);
    },
  };
}

function withCode(e: GraphQLError, code: string): GraphQLError {
  if (e.extensions.code !== undefined) return e;
  return new GraphQLError(e.message, {
    nodes: e.nodes,
    source: e.source,
    positions: e.positions,
    path: e.path,
    originalError: e.originalError,
    extensions: { ...e.extensions, code },
  });
}
