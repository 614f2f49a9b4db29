// Mutation testing of the pure code and the request path (npm run mutation): see docs/testing.md.

/**
 * The scope, in shards that scripts/mutation.mjs runs one after another (`npm run mutation`, or
 * `npm run mutation -- <shard>…`) and whose reports it merges. A mutant's tests run over code
 * Stryker instrumented: with only their shard's files instrumented, the transports' tests ran
 * about twice as fast (BENCHMARKS.md), and the tests still run the rest of src/ as written.
 * `npx stryker run` alone runs every shard at once, as one run.
 */
export const SHARDS = {
  // The pure code.
  pure: ['src/domain/**/*.ts', 'src/validation/**/*.ts', 'src/auth/**/*.ts'],
  // The request path, as its in-process unit tests cover it (issue 58): the operation pipeline and
  // its steps and the live conditions feed (unit-tested over the real schema and a copy of the
  // run's database: test/unit/pipeline-steps, conditions-feed, shared-events*). The data layer as
  // its unit tests drive it over a real SQLite file (a copy of the run's database, or one of the
  // real schema in a temp dir), not the code only a build runs (src/data/db: build, sources,
  // holders' exit hook). The keys command's logic (keys.ts only hands it the process's arguments
  // and streams).
  core: [
    'src/operation/**/*.ts',
    'src/live/**/*.ts',
    'src/data/data-version.ts',
    'src/data/loaders.ts',
    'src/data/repositories/**/*.ts',
    'src/data/snapshots/**/*.ts',
    'src/data/db/open.ts',
    'src/data/db/fingerprint.ts',
    'src/cli/keys-command.ts',
  ],
  // The HTTP mechanics, whose units run without a whole server (test/unit/serving.ts: requests
  // fail fast rather than wait when a mutant leaves one unanswered).
  http: ['src/http/**/*.ts'],
  // The transports, against the whole server built from src/ on an ephemeral port
  // (test/unit/app-world.ts) with real clients, or through an exchange (test/unit/serving.ts):
  // http.ts, answers and streams, the REST router (its route table unit-tested in route-table.test,
  // built inside each test), the REST shapes (each route's `shape`, unit-tested against recorded
  // answers in rest-shapes.test), the list forms, the OpenAPI document (compared with the committed
  // one). The response schemas (rest/responses.ts) are declarations evaluated at load, every mutant
  // there static: openapi.test checks them against every route's real answer instead. Left out:
  // codegen's output (operations/generated.ts, tables of the operation files' text, every mutant
  // static; codegen:check keeps them equal to the files).
  transports: ['src/transports/**/*.ts', '!src/transports/**/generated.ts', '!src/transports/mcp/**', '!src/transports/graphql/ws.ts'],
  // GraphQL over WebSocket (ws.ts, with raw sockets in test/unit/graphql-ws: its waits fail within
  // 5 s where a mutant keeps a socket open or silent, and its costliest test runs last) and MCP
  // (test/unit/mcp*: the endpoint, its sessions and resource subscriptions through the SDK's client
  // and raw HTTP, and the tools' schemas derived in a test rather than only at load).
  sessions: ['src/transports/graphql/ws.ts', 'src/transports/mcp/**/*.ts', '!src/transports/**/generated.ts'],
};

/** Issue 58's floor over the whole scope (Stryker's score, equivalent mutants counted as survivors). */
export const THRESHOLDS = { high: 95, low: 90, break: 90 };

const shard = process.env.MUTATION_SHARD;
if (shard !== undefined && !Object.hasOwn(SHARDS, shard)) {
  throw new Error(`MUTATION_SHARD=${shard}: not one of ${Object.keys(SHARDS).join(', ')}`);
}
/** Where a shard's reports and incremental record go; the whole scope's, where they always went. */
const place = shard ? `shards/${shard}/` : '';
/** A shard's JSON report, which scripts/mutation.mjs merges with the others'. */
export const shardReport = (name) => `reports/mutation/shards/${name}/mutation.json`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // Each mutant runs the tests that covered it: vitest need not also trace which files import the
  // mutated one (`related`), work repeated for every mutant.
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  mutate: shard ? SHARDS[shard] : Object.values(SHARDS).flat(),
  coverageAnalysis: 'perTest',
  // A repeat run re-tests only the mutants whose code or covering tests changed (the file is kept
  // beside the reports, not committed).
  incremental: true,
  incrementalFile: `reports/${place}stryker-incremental.json`,
  // Mutants in module-level tables (word lists, the FIPS table, bounds objects) run every test
  // each: 17 % of the mutants for 75 % of the time. They are reported as ignored, not as killed.
  ignoreStatic: true,
  // Four test runners on two cores: the transports' tests spend much of a mutant waiting on sockets
  // and timers (at two, the CPU was half idle), so four test about 1.5× as many mutants a minute,
  // with the same score (BENCHMARKS.md, "The suite's strength").
  concurrency: 4,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${place}index.html` },
  jsonReporter: { fileName: shard ? shardReport(shard) : 'reports/mutation/mutation.json' },
  // A run under issue 58's floor (90 % over the whole scope, equivalents counted as survivors)
  // fails; the last full run is at the head of test/mutation-survivors.md. A shard's score is not
  // the scope's: scripts/mutation.mjs checks the floor over all of them.
  thresholds: { ...THRESHOLDS, break: shard ? null : THRESHOLDS.break },
  tempDirName: '.stryker-tmp',
  // Stryker rewrites tsconfig paths with a TypeScript API that TypeScript 7 no longer has; our
  // tsconfig has no `extends` or references to rewrite, and vitest does not read it, so point the
  // rewriter at nothing.
  tsconfigFile: 'no-tsconfig-to-rewrite.json',
  ignorePatterns: ['dist', 'dista', 'distb', 'scratch', 'reports', 'data/*.sqlite*', '.ci', 'bench'],
};
