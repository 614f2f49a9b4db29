import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The tree reads as the request path (docs/architecture.md): entry points at src/'s root, then
 * app/ (start-up), transports/, http/, operation/, graphql/ (the schema), the services, data/,
 * domain/, lib/. Checked here on the source's imports, type-only ones included.
 */

const SRC = path.resolve(import.meta.dirname, '..', '..', 'src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return filesUnder(p);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [p] : [];
  });
}

const SPECIFIER = /(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g;

/** Each source file's imports: relative ones as files, packages and node: modules by name. */
function importsOf(file: string): { files: string[]; modules: string[] } {
  const text = readFileSync(file, 'utf8');
  const files: string[] = [];
  const modules: string[] = [];
  for (const [, spec] of text.matchAll(SPECIFIER)) {
    if (!spec!.startsWith('.')) {
      modules.push(spec!);
      continue;
    }
    const target = path.resolve(path.dirname(file), spec!).replace(/\.js$/, '.ts');
    files.push(target.endsWith('.ts') ? target : `${target}.ts`);
  }
  return { files, modules };
}

const files = filesUnder(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f)]));
const rel = (f: string) => path.relative(SRC, f);
/** A file's folder of src/ ('.' for the root). */
const folderOf = (f: string) => (rel(f).includes('/') ? rel(f).split('/')[0]! : '.');

describe('the tree', () => {
  it('holds at most four files at src/’s root, the entry points', () => {
    const root = files.filter((f) => folderOf(f) === '.').map(rel);
    expect(root.length).toBeLessThanOrEqual(4);
    expect(root.sort()).toEqual(['bundle-entry.ts', 'main.ts', 'server.ts']);
  });

  it('every relative import names a file that exists', () => {
    const missing = [...graph].flatMap(([f, { files: targets }]) => targets.filter((t) => !graph.has(t)).map((t) => `${rel(f)} → ${rel(t)}`));
    expect(missing).toEqual([]);
  });

  it('has no import cycle between files (type-only imports included)', () => {
    // Tarjan's strongly connected components: any with more than one file is a cycle.
    let index = 0;
    const indexOf = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    const visit = (v: string) => {
      indexOf.set(v, index);
      low.set(v, index++);
      stack.push(v);
      onStack.add(v);
      for (const w of graph.get(v)!.files) {
        if (!graph.has(w)) continue;
        if (!indexOf.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
      }
      if (low.get(v) === indexOf.get(v)) {
        const component: string[] = [];
        for (let w = stack.pop()!; ; w = stack.pop()!) {
          onStack.delete(w);
          component.push(rel(w));
          if (w === v) break;
        }
        if (component.length > 1) cycles.push(component.sort());
      }
    };
    for (const f of files) if (!indexOf.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });

  it('no two folders of src/ import each other', () => {
    const uses = new Map<string, Set<string>>();
    for (const [f, { files: targets }] of graph) {
      for (const t of targets) {
        const [a, b] = [folderOf(f), folderOf(t)];
        if (a === b) continue;
        if (!uses.has(a)) uses.set(a, new Set());
        uses.get(a)!.add(b);
      }
    }
    const both = [...uses].flatMap(([a, bs]) => [...bs].filter((b) => a < b && uses.get(b)?.has(a)).map((b) => `${a} ↔ ${b}`));
    expect(both).toEqual([]);
    // A real test of the check: the folders do use each other one way.
    expect(uses.get('transports')?.has('operation')).toBe(true);
  });

  it('domain/ is pure: it imports nothing that does I/O, and nothing outside domain/ but lib/’s pure helpers', () => {
    const IO = /^(node:)?(fs|fs\/promises|net|http|https|child_process|worker_threads|dgram)$|^better-sqlite3$|^ioredis$|^pino/;
    const offences = files
      .filter((f) => folderOf(f) === 'domain')
      .flatMap((f) => {
        const { files: targets, modules } = graph.get(f)!;
        return [
          ...modules.filter((m) => IO.test(m)).map((m) => `${rel(f)} → ${m}`),
          ...targets.filter((t) => folderOf(t) !== 'domain' && !['lib/intern.ts'].includes(rel(t))).map((t) => `${rel(f)} → ${rel(t)}`),
        ];
      });
    expect(files.some((f) => folderOf(f) === 'domain')).toBe(true);
    expect(offences).toEqual([]);
  });
});

describe('comments', () => {
  const ROOT = path.resolve(SRC, '..');
  const COMMENT = /\/\/[^\n]*|\/\*[\s\S]*?\*\//g;
  const NAMED_FILE = /(?<![\w@/.-])((?:[\w-]+\/)*[\w.-]+\.(?:ts|js|mjs|cjs|md|json|graphql))\b/g;
  // Names of what is not in the tree: the build's output, and the manifest codegen writes for a client.
  const NOT_IN_THE_TREE = [/^dist\//, /^persisted-documents\.json$/];
  const everything = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => (statSync(path.join(dir, name)).isDirectory() ? everything(path.join(dir, name)) : [path.join(dir, name)]));
  const sources = everything(SRC);

  /** A file named in a comment: from the project's root, or by the end of its path under src/ (a .js for its .ts). */
  const exists = (named: string) =>
    NOT_IN_THE_TREE.some((re) => re.test(named)) ||
    existsSync(path.join(ROOT, named)) ||
    sources.some((f) => `/${path.relative(SRC, f)}`.replace(/\.ts$/, '.js').endsWith(`/${named.replace(/^src\//, '').replace(/\.ts$/, '.js')}`));

  it('every file a comment in src/ names exists (a comment that points at a moved file misleads)', () => {
    const stale = sources
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) =>
        [...readFileSync(f, 'utf8').matchAll(COMMENT)].flatMap(([comment]) =>
          [...comment.matchAll(NAMED_FILE)]
            .map(([, named]) => named!)
            .filter((named) => !exists(named))
            .map((named) => `${rel(f)}: ${named}`),
        ),
      );
    expect(stale).toEqual([]);
  });

  it('the check sees a stale name (the control)', () => {
    expect(exists('graphql/executor.ts')).toBe(false);
    expect(exists('operation/incremental.ts')).toBe(true);
    expect(exists('data/resorts.json')).toBe(true);
  });
});

describe('one door', () => {
  const source = (file: string) => readFileSync(path.join(SRC, file), 'utf8');

  it('requests and WebSocket upgrades enter by http/dispatch.ts; the WebSocket adapter checks no path, origin or upgrade key of its own', () => {
    const start = source('app/http-server.ts');
    expect(start).toMatch(/server\.on\('upgrade'[\s\S]*?dispatch\.upgrade\(/);
    expect(start).toMatch(/createServer\([^)]*dispatch\)/);
    const ws = source('transports/graphql/ws.ts');
    for (const ownCheck of ['allowsOrigin', 'sameOrigin', 'presentedKey', "'/graphql'"]) expect(ws, ownCheck).not.toContain(ownCheck);
    expect(source('http/dispatch.ts')).toMatch(/async function upgrade\(/);
  });
});
