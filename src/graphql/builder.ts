import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import { GraphQLError } from 'graphql';
import type { GraphQLContext } from './context.js';

/** The most work one operation may ask for: fields resolved, lists weighted by their size. */
export const MAX_COMPLEXITY = 250_000;

/**
 * One builder for the whole schema. The complexity plugin weighs every list by the size its
 * arguments ask for (a `limit`, or the catalogue's size), so a few nested lists cannot multiply
 * into millions of resolutions; it applies to REST shims and /graphql alike. DataLoaders live in
 * the request context (graphql/loaders.ts) and argument validation is the shared zod layer
 * (validation/), because the REST shims need the very same loaders and validation.
 */
export const builder = new SchemaBuilder<{ Context: GraphQLContext; DefaultFieldNullability: false }>({
  defaultFieldNullability: false,
  plugins: [ComplexityPlugin],
  complexity: {
    defaultComplexity: 1,
    defaultListMultiplier: 10,
    limit: { complexity: MAX_COMPLEXITY, depth: 14, breadth: 400 },
    complexityError: (kind, result) => {
      const [actual, max] = {
        Complexity: [result.complexity, result.maxComplexity],
        Depth: [result.depth, result.maxDepth],
        Breadth: [result.breadth, result.maxBreadth],
      }[kind];
      return new GraphQLError(`Query ${kind.toLowerCase()} ${actual} is over the limit of ${max}; ask for smaller pages or fewer nested lists.`, {
        extensions: { code: 'QUERY_TOO_COMPLEX', status: 400 },
      });
    },
  },
});

/** A list's weight from its `limit` argument (bad values count as the default; validation rejects them). */
export const byLimit = (fallback: number) => (args: { limit?: number | null }) => ({
  field: 1,
  multiplier: typeof args.limit === 'number' && args.limit > 0 ? Math.min(args.limit, 10_000) : fallback,
});

builder.queryType({ description: 'Ski resort conditions and US ZIP codes.' });
