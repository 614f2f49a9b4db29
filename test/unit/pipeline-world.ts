import { rmSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, inject } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { contextFactory, type GraphQLContext, type Services } from '../../src/graphql/context.js';
import { openDatabase } from '../../src/data/db/open.js';
import { createRepositories } from '../../src/data/repositories/index.js';
import { SnapshotStore } from '../../src/data/snapshots/store.js';
import { DataVersion } from '../../src/data/data-version.js';
import { RequestLoaders } from '../../src/data/loaders.js';
import { WeatherWindow } from '../../src/weather/window.js';
import { simulatedProvider } from '../../src/providers/simulated.js';
import { HistoryService } from '../../src/history/service.js';
import { SyncRunner } from '../../src/sync/runner.js';
import { SyncRepository } from '../../src/data/repositories/sync.js';
import { ResortRepository } from '../../src/data/repositories/resorts.js';
import { CostBudget } from '../../src/auth/cost-budget.js';
import { ConditionsFeed } from '../../src/live/conditions-feed.js';
import { Lazy } from '../../src/lib/lazy.js';
import { ZipSpatialIndex } from '../../src/domain/zip-spatial-index.js';
import { PointIndex } from '../../src/domain/point-index.js';
import { ResponseCache } from '../../src/http/response-cache.js';
import { createFreshnessOf } from '../../src/operation/freshness.js';
import { PersistedDocuments } from '../../src/operation/persisted-documents.js';
import { createPipeline, type PipelineOptions } from '../../src/operation/pipeline.js';
import type { Outcome } from '../../src/operation/operation.js';
import { privateDatabase } from '../helpers/server.js';
import { beforeAllOrFailEach } from './fixture-hooks.js';

/** A logger that keeps what was logged at error and warn, for the tests that look. */
export function recordingLogger() {
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/**
 * The services the server builds (app/data.ts) over a private copy of the run's database, on a
 * clock of the test's own (the run's date, moved only by the test), with nothing started in the
 * background: no sync schedule, no live checks (a feed with no subscriber sets no timer).
 */
export function makeServices(prefix: string, clock: { at: number } = { at: Date.parse(inject('clock').start) }) {
  const file = privateDatabase(prefix);
  const db = openDatabase(file);
  const repos = createRepositories(db);
  const { logger, lines } = recordingLogger();
  const now = () => new Date(clock.at);
  const weatherWindow = new WeatherWindow(repos.resorts, repos.weather, simulatedProvider, now, logger, true);
  const dataVersion = new DataVersion(repos, now);
  const loaderServices = { repos, snapshots: new SnapshotStore(), snapshotChunk: 250, dataVersion, weatherWindow };
  const live = new ConditionsFeed({
    snapshots: (ids) => new RequestLoaders(loaderServices).snapshotByResort.loadMany(ids),
    version: () => dataVersion.current().version,
    checkEveryMs: 60_000,
    logger,
  });
  const sync = new SyncRunner({
    runs: new SyncRepository(db),
    resorts: new ResortRepository(db),
    conditions: simulatedProvider,
    lifts: null,
    liftieIds: new Map(),
    now,
    logger,
    concurrency: 4,
    runBudgetMs: 60_000,
  });
  const services: Services = {
    ...loaderServices,
    live,
    zipIndex: new Lazy(() => new ZipSpatialIndex(repos.zips.table())),
    resortIndex: new Lazy(() => PointIndex.of(repos.resorts.all(), (r) => r.id)),
    history: new HistoryService(simulatedProvider),
    sync,
    costBudget: new CostBudget(2_000, 10, () => clock.at),
    logger,
    now,
  };
  return {
    db,
    repos,
    services,
    clock,
    lines,
    /** Ends the feed, closes the database and removes its copy (Stryker runs these files once per mutant: 15 MB each time). */
    close: () => {
      live.close();
      if (db.open) db.close();
      rmSync(path.dirname(file), { recursive: true, force: true });
    },
  };
}

type Services_ = ReturnType<typeof makeServices>;
type WorldOptions = Partial<Pick<PipelineOptions, 'introspection' | 'trustedOnly' | 'documents'>>;
export type World = ReturnType<typeof worldOver>;

/** The services, a context per request (as the dispatcher makes them), and the pipeline as http-server.ts wires it. */
export function makeWorld(prefix: string, options: WorldOptions = {}) {
  return worldOver(makeServices(prefix), options);
}

/**
 * One copy of the database for a describe block's tests (made before them, removed after): each
 * test builds its pipeline over it in a beforeEach (worldOver). Stryker attributes to a test only
 * the code that runs in it and its beforeEach, not a beforeAll's: a pipeline built once would
 * leave its steps' construction to no test.
 */
export function sharedServices(prefix: string): () => Services_ {
  let base: Services_ | undefined;
  beforeAllOrFailEach(() => {
    base = makeServices(prefix);
  });
  afterAll(() => base?.close());
  return () => base!;
}

/** A pipeline of its own (its caches, its documents) over services already made. */
export function worldOver(base: Services_, options: WorldOptions = {}) {
  const cache = new ResponseCache(1024 * 1024);
  const documents = options.documents ?? new PersistedDocuments();
  const { dataVersion } = base.services;
  const pipeline = createPipeline({
    schema,
    introspection: options.introspection ?? true,
    documents,
    trustedOnly: options.trustedOnly ?? false,
    cache,
    freshnessOf: createFreshnessOf(schema),
    versionOf: (freshness) => dataVersion.of(freshness),
    cacheControlOf: (freshness) => dataVersion.cacheControl(freshness),
  });
  const newContext = contextFactory(base.services);
  let requests = 0;
  /** A request's context: `keyId` a key's (its budget counted at `keyRate` requests/s), null with AUTH=off. */
  const context = (request: { keyId?: number | null; keyRate?: number; signal?: AbortSignal } = {}): GraphQLContext =>
    newContext({
      requestId: `req-${++requests}`,
      signal: request.signal ?? new AbortController().signal,
      scopes: '',
      keyId: request.keyId ?? null,
      keyRate: request.keyRate ?? 25,
      due: Number.POSITIVE_INFINITY,
    });
  return { ...base, cache, documents, pipeline, context };
}

/** The refusal an outcome is, or a failure that says what it was instead. */
export function refusal(outcome: Outcome) {
  if (outcome.kind !== 'refused') throw new Error(`expected a refusal, got ${JSON.stringify(outcome)}`);
  return outcome;
}

/** The result an outcome is, or a failure that says what it was instead. */
export function result(outcome: Outcome) {
  if (outcome.kind !== 'result') throw new Error(`expected a result, got ${JSON.stringify(outcome)}`);
  return outcome.result;
}

/** Turns of the event loop a test waits for an answer before it calls it missing. */
const TURNS = 2_000;

/**
 * The promise's outcome, or a failure once the event loop has turned TURNS times without it: what
 * a test awaits comes from work done in turns of the loop (no timer, no I/O), so an answer missing
 * after that many is missing for good. A mutant that loses an answer then fails the test at once
 * instead of holding it until the runner's timeout (and a restart of the runner).
 */
export function bounded<T>(p: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let turns = 0;
    p.then(
      (v) => {
        settled = true;
        resolve(v);
      },
      (e: unknown) => {
        settled = true;
        reject(e);
      },
    );
    const turn = () => {
      if (settled) return;
      if (++turns > TURNS) reject(new Error(`no answer after ${TURNS} turns of the event loop`));
      else setImmediate(turn);
    };
    setImmediate(turn);
  });
}
