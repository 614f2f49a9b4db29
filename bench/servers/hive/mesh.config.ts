/**
 * For `npm run bench`: the peer a user would otherwise deploy — GraphQL Mesh composes a
 * supergraph from our /openapi.json (UPSTREAM, e.g. http://127.0.0.1:4000), and Hive Gateway
 * serves it, calling our REST paths with the key in BENCH_KEY.
 */
import { defineConfig } from '@graphql-mesh/compose-cli';
import { loadOpenAPISubgraph } from '@omnigraph/openapi';

const upstream = process.env.UPSTREAM!;

export const composeConfig = defineConfig({
  subgraphs: [
    {
      sourceHandler: loadOpenAPISubgraph('SkiZip', {
        source: `${upstream}/openapi.json`,
        endpoint: upstream,
        operationHeaders: { 'x-api-key': process.env.BENCH_KEY! },
      }),
    },
  ],
});
