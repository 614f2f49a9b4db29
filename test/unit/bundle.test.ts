import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript, no declarations
import { duplicatesIn } from '../../scripts/build.mjs';
import { BUNDLE_DIR } from '../helpers/bundle.js';

const metafile = (...inputs: string[]) => ({ inputs: Object.fromEntries(inputs.map((i) => [i, { bytes: 1, imports: [] }])), outputs: {} });

describe('the build refuses a bundle holding a library twice', () => {
  it('graphql in its ESM and its CommonJS build (the realm error of __typename and introspection)', () => {
    const problems: string[] = duplicatesIn(metafile('src/app.ts', 'node_modules/graphql/execution/execute.mjs', 'node_modules/graphql/execution/execute.js'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/node_modules\/graphql is bundled in two builds/);
  });

  it('a package from two installed copies, and a package in cjs/ and esm/ builds', () => {
    const problems: string[] = duplicatesIn(
      metafile(
        'node_modules/lru-cache/dist/esm/index.js',
        'node_modules/graphql-yoga/node_modules/lru-cache/dist/esm/index.js',
        'node_modules/@x/utils/cjs/index.js',
        'node_modules/@x/utils/esm/index.js',
      ),
    );
    expect(problems.some((p) => /^lru-cache is bundled from 2 installed copies/.test(p))).toBe(true);
    expect(problems.some((p) => /node_modules\/@x\/utils is bundled in two builds/.test(p))).toBe(true);
  });

  it('distinct modules of one package, and one build of each, pass', () => {
    expect(
      duplicatesIn(
        metafile(
          'node_modules/graphql/index.mjs',
          'node_modules/graphql/language/parser.mjs',
          'node_modules/@opentelemetry/api/build/esm/platform/node/index.js',
          'node_modules/@opentelemetry/api/build/esm/platform/index.js',
        ),
      ),
    ).toEqual([]);
  });

  it('the suite’s bundle (the same build as npm start’s) holds each library once', () => {
    const meta = JSON.parse(readFileSync(path.join(BUNDLE_DIR, 'meta.json'), 'utf8'));
    const graphqlFiles = Object.keys(meta.inputs).filter((i) => i.startsWith('node_modules/graphql/'));
    expect(graphqlFiles.length).toBeGreaterThan(50);
    expect(graphqlFiles.every((f) => f.endsWith('.mjs'))).toBe(true);
    expect(duplicatesIn(meta)).toEqual([]);
  });
});

describe('start-up runs only what the first answer needs', () => {
  type Meta = { inputs: Record<string, { imports: { path: string; kind: string; external?: boolean }[] }> };
  /**
   * The modules that run when the bundle loads: the entry and everything it imports or requires,
   * not following dynamic imports (those modules are in the bundle too, but run on first use).
   */
  function runAtStart(meta: Meta): Set<string> {
    const seen = new Set<string>();
    const visit = (input: string) => {
      if (seen.has(input) || !meta.inputs[input]) return;
      seen.add(input);
      for (const i of meta.inputs[input]!.imports) if (i.kind !== 'dynamic-import' && !i.external) visit(i.path);
    };
    visit('src/bundle-entry.ts');
    return seen;
  }

  it('graphql-jit, the incremental engine, the WebSocket transport, GraphiQL, Redis, metrics, tracing and zlib run on first use, not at start', () => {
    const meta = JSON.parse(readFileSync(path.join(BUNDLE_DIR, 'meta.json'), 'utf8')) as Meta;
    const atStart = [...runAtStart(meta)];
    // What the first lookup does need is there (the check would pass vacuously on an empty graph).
    expect(atStart.some((i) => i.startsWith('node_modules/graphql/execution/'))).toBe(true);
    expect(atStart.some((i) => i.startsWith('node_modules/@pothos/core/'))).toBe(true);
    for (const lazy of [
      'graphql-jit',
      '@graphql-tools/executor',
      'graphql-ws',
      'ws',
      'ioredis',
      'prom-client',
      '@opentelemetry/sdk-trace-node',
      '@opentelemetry/exporter-trace-otlp-http',
    ]) {
      // (A package's own files; what it nests under its node_modules may be shared by the start-up code.)
      const own = atStart.filter((i) => i.startsWith(`node_modules/${lazy}/`) && !i.startsWith(`node_modules/${lazy}/node_modules/`));
      expect(own, lazy).toEqual([]);
      // ...and each is in the bundle, reached through a dynamic import.
      expect(
        Object.keys(meta.inputs).some((i) => i.startsWith(`node_modules/${lazy}/`)),
        lazy,
      ).toBe(true);
    }
    // node:zlib (~3.4 ms to load) comes with the first body large enough to compress.
    const zlibAtStart = atStart.filter((i) =>
      meta.inputs[i]!.imports.some((x) => (x.path === 'node:zlib' || x.path === 'zlib') && x.kind !== 'dynamic-import'),
    );
    expect(zlibAtStart).toEqual([]);
    // GraphiQL's page (8 MB) stays outside the bundle, required only by the first request for it.
    const graphiql = Object.values(meta.inputs)
      .flatMap((i) => i.imports)
      .filter((i) => i.path === '@graphql-yoga/render-graphiql');
    expect(graphiql.length).toBeGreaterThan(0);
    expect(graphiql.every((i) => i.kind === 'dynamic-import' && i.external)).toBe(true);
  });
});
