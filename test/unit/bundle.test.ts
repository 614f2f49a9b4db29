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
      metafile('node_modules/lru-cache/dist/esm/index.js', 'node_modules/graphql-yoga/node_modules/lru-cache/dist/esm/index.js', 'node_modules/@x/utils/cjs/index.js', 'node_modules/@x/utils/esm/index.js'),
    );
    expect(problems.some((p) => /^lru-cache is bundled from 2 installed copies/.test(p))).toBe(true);
    expect(problems.some((p) => /node_modules\/@x\/utils is bundled in two builds/.test(p))).toBe(true);
  });

  it('distinct modules of one package, and one build of each, pass', () => {
    expect(duplicatesIn(metafile('node_modules/graphql/index.mjs', 'node_modules/graphql/language/parser.mjs', 'node_modules/@opentelemetry/api/build/esm/platform/node/index.js', 'node_modules/@opentelemetry/api/build/esm/platform/index.js'))).toEqual([]);
  });

  it('the suite’s bundle (the same build as npm start’s) holds each library once', () => {
    const meta = JSON.parse(readFileSync(path.join(BUNDLE_DIR, 'meta.json'), 'utf8'));
    const graphqlFiles = Object.keys(meta.inputs).filter((i) => i.startsWith('node_modules/graphql/'));
    expect(graphqlFiles.length).toBeGreaterThan(50);
    expect(graphqlFiles.every((f) => f.endsWith('.mjs'))).toBe(true);
    expect(duplicatesIn(meta)).toEqual([]);
  });
});

describe('start-up loads only what the first answer needs', () => {
  /** The bundle's outputs that `dist/server.js` imports statically, directly or through other chunks. */
  function loadedAtStart(meta: { outputs: Record<string, { imports: { path: string; kind: string }[] }> }): Set<string> {
    const seen = new Set<string>();
    const visit = (out: string) => {
      if (seen.has(out)) return;
      seen.add(out);
      for (const i of meta.outputs[out]?.imports ?? []) if (i.kind === 'import-statement' && i.path.startsWith(path.basename(BUNDLE_DIR) + '/')) visit(i.path);
    };
    visit(Object.keys(meta.outputs).find((o) => o.endsWith('/server.js'))!);
    return seen;
  }

  it('graphql-jit, Yoga, GraphiQL, Redis, metrics and tracing are chunks of their own, loaded on first use', () => {
    const meta = JSON.parse(readFileSync(path.join(BUNDLE_DIR, 'meta.json'), 'utf8'));
    const atStart = loadedAtStart(meta);
    expect(atStart.size).toBeGreaterThan(1);
    const inputsAtStart = [...atStart].flatMap((o) => Object.keys(meta.outputs[o].inputs as object));
    // What the first lookup does need is there (the check would pass vacuously on an empty graph).
    expect(inputsAtStart.some((i) => i.startsWith('node_modules/graphql/execution/'))).toBe(true);
    expect(inputsAtStart.some((i) => i.startsWith('node_modules/@pothos/core/'))).toBe(true);
    for (const lazy of ['graphql-jit', 'graphql-yoga', '@graphql-yoga/render-graphiql', 'ioredis', 'prom-client', '@opentelemetry/sdk-trace-base']) {
      // (A package's own files; what it nests under its node_modules may be shared by the start-up code.)
      const own = inputsAtStart.filter((i) => i.startsWith(`node_modules/${lazy}/`) && !i.startsWith(`node_modules/${lazy}/node_modules/`));
      expect(own, lazy).toEqual([]);
    }
  });
});
