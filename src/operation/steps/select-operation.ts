import { getOperationAST, GraphQLError, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { refuse, type Outcome, type Step } from '../operation.js';

const badRequest = (message: string) => refuse(new GraphQLError(message, { extensions: { code: 'BAD_REQUEST' } }), 400);

const MUTATION_OVER_GET = refuse(
  new GraphQLError('Can only perform a mutation operation from a POST request.', { extensions: { code: 'METHOD_NOT_ALLOWED' } }),
  405,
  405,
  ['allow', 'POST'],
);

const SUBSCRIPTION_NEEDS_A_STREAM = refuse(
  new GraphQLError(
    'A subscription is answered as a stream: send accept: text/event-stream (SSE) or multipart/mixed, or use the WebSocket at /graphql (graphql-transport-ws).',
    { extensions: { code: 'NOT_ACCEPTABLE' } },
  ),
  406,
);

/** A document's only operation, remembered per document (the parse cache hands out one per text); a named one looked up. */
const onlyOperation = new WeakMap<DocumentNode, OperationDefinitionNode | null>();
function operationOf(document: DocumentNode, name: string | undefined): OperationDefinitionNode | null {
  if (name !== undefined) return getOperationAST(document, name) ?? null;
  let found = onlyOperation.get(document);
  if (found === undefined) onlyOperation.set(document, (found = getOperationAST(document) ?? null));
  return found;
}

const isObjectOrNull = (v: unknown) => v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v));

/**
 * The operation the request runs (its operationName's, or the only one), and whether this request
 * may run it: a mutation not over GET (405, whatever the client accepts), a subscription only where
 * a stream can carry it (406 on a plain JSON request).
 */
export const selectOperationStep: Step = {
  name: 'select-operation',
  run(op): Outcome | undefined {
    const { operationName, variables } = op.request;
    if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return badRequest('operationName must be a string.');
    if (!isObjectOrNull(variables)) return badRequest('variables must be a JSON object.');
    const definition = operationOf(op.document!, operationName ?? undefined);
    if (!definition) {
      return badRequest(
        typeof operationName === 'string'
          ? `Unknown operation named "${operationName}".`
          : 'Must provide operation name if query contains multiple operations.',
      );
    }
    if (definition.operation === 'mutation' && op.request.overGet) return MUTATION_OVER_GET;
    if (definition.operation === 'subscription' && !op.transport.streams) return SUBSCRIPTION_NEEDS_A_STREAM;
    op.definition = definition;
    op.operationName = operationName ?? undefined;
    op.variables = (variables ?? undefined) as Readonly<Record<string, unknown>> | undefined;
    return undefined;
  },
};
