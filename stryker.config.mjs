// Mutation testing of the pure code (npm run mutation): see README, "Testing".
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  // The pure code, and the REST shapes: each route's \`shape\` (a pure function of its operation's
  // data, unit-tested against recorded answers in rest-shapes.test). The response schemas
  // (src/transports/rest/responses.ts) are declarations evaluated at load, every mutant there static:
  // openapi.test checks them against every route's real answer instead.
  // The request path, as its in-process unit tests cover it (issue 58): the operation pipeline and
  // its steps and the live conditions feed (unit-tested over the real schema and a copy of the run's
  // database: test/unit/pipeline-steps, conditions-feed, shared-events*), and the HTTP mechanics
  // whose units run without a whole server (exchange.ts and dispatch.ts not yet: a mutant there
  // hangs a request until the runner's time-out). The transports, against the whole server built
  // from src/ on an ephemeral port (test/unit/app-world.ts) with real clients: http.ts (92.8 %)
  // and the list forms so far. Not yet: answer.ts and event-stream.ts (62 % and 50 % before their latest
  // tests), router.ts (its table is built in a beforeAll, before a mutant is active: 60 %), ws.ts
  // and mcp/ (tested by graphql-ws and mcp, but ws.ts alone takes ~90 minutes on one core).
  mutate: [
    'src/domain/**/*.ts',
    'src/validation/**/*.ts',
    'src/auth/**/*.ts',
    'src/transports/rest/*-routes.ts',
    'src/transports/graphql/http.ts',
    'src/transports/graphql/part-json.ts',
    'src/transports/rest/list-formats.ts',
    'src/transports/rest/list-stream.ts',
    'src/operation/**/*.ts',
    'src/live/**/*.ts',
    'src/data/data-version.ts',
    'src/http/body.ts',
    'src/http/connections.ts',
    'src/http/deadline.ts',
    'src/http/frequency-sketch.ts',
    'src/http/identity.ts',
    'src/http/json-guard.ts',
    'src/http/metrics.ts',
    'src/http/pending-sockets.ts',
    'src/http/query-string.ts',
    'src/http/request-tally.ts',
    'src/http/response-cache.ts',
    'src/http/stream-keys.ts',
    'src/http/streams.ts',
    'src/http/unparsed.ts',
  ],
  coverageAnalysis: 'perTest',
  // Mutants in module-level tables (word lists, the FIPS table, bounds objects) run every test
  // each: 17 % of the mutants for 75 % of the time. They are reported as ignored, not as killed.
  ignoreStatic: true,
  concurrency: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  // Stryker rewrites tsconfig paths with a TypeScript API that TypeScript 7 no longer has; our
  // tsconfig has no `extends` or references to rewrite, and vitest does not read it, so point the
  // rewriter at nothing.
  tsconfigFile: 'no-tsconfig-to-rewrite.json',
  ignorePatterns: ['dist', 'dista', 'distb', 'scratch', 'reports', 'data/*.sqlite*', '.ci', 'bench'],
};
