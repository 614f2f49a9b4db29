import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * schema/schema.graphql is printed from the Pothos schema first (scripts/print-schema.ts); the
 * client preset then types every operation the tests write with `graphql(...)`.
 */
const config: CodegenConfig = {
  schema: 'schema/schema.graphql',
  documents: ['test/**/*.ts', '!test/gql/**'],
  ignoreNoDocuments: true,
  // ESM with NodeNext resolution: generated imports carry their .js extension.
  importExtension: '.js',
  generates: {
    'test/gql/': {
      preset: 'client',
      config: { useTypeImports: true, enumsAsTypes: true },
      presetConfig: { fragmentMasking: false },
    },
  },
};

export default config;
