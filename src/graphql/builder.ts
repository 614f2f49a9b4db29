import SchemaBuilder from '@pothos/core';
import type { GraphQLContext } from './context.js';

/**
 * One builder for the whole schema. Plain Pothos core: DataLoaders live in the request context
 * (graphql/loaders.ts) and argument validation is the shared zod layer (validation/), because the
 * REST shims need the very same loaders and validation outside any Pothos field.
 */
export const builder = new SchemaBuilder<{ Context: GraphQLContext; DefaultFieldNullability: false }>({
  defaultFieldNullability: false,
});

builder.queryType({ description: 'Ski resort conditions and US ZIP codes.' });
