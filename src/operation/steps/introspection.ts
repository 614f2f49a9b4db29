import { NoSchemaIntrospectionCustomRule, validate, type DocumentNode, type GraphQLError, type GraphQLSchema } from 'graphql';
import type { Step } from '../operation.js';
import { checkedOnce, VALIDATION_FAILED } from './validation-memo.js';

export function introspectionErrors(schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[] {
  return validate(schema, document, [NoSchemaIntrospectionCustomRule]);
}

/**
 * With introspection off (GRAPHQL_INTROSPECTION=off, the default when NODE_ENV=production), a
 * document asking for __schema or __type is refused; `__typename` stays allowed (clients need it).
 * The finalize step hides "Did you mean …?" hints in the same mode.
 */
export function noIntrospectionStep(schema: GraphQLSchema): Step {
  return checkedOnce('no-introspection', (document) => introspectionErrors(schema, document), VALIDATION_FAILED);
}
