import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The documentation as a reader meets it: a short README that sends them to pages under docs/,
 * every relative link and anchor of them landing somewhere, and a BENCHMARKS.md of current tables.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const DOCS = path.join(ROOT, 'docs');
const pages = [
  path.join(ROOT, 'README.md'),
  path.join(ROOT, 'BENCHMARKS.md'),
  path.join(ROOT, 'CHANGELOG.md'),
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(DOCS, f)),
];

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors of a Markdown file: its headings (outside fenced code). */
function anchorsOf(file: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6} (.+)$/.exec(line);
    if (m) out.add(slug(m[1]!));
  }
  return out;
}

/** Relative links of a Markdown file (outside fenced code): [text](target). */
function linksOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/.test(t));
}

describe('the documentation', () => {
  it('README.md is short: at most 250 lines, and it sends the reader to each page of docs/', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    for (const page of ['configuration', 'keys', 'graphql', 'hardening', 'replicas', 'operations', 'architecture', 'testing', 'rest-api', 'data']) {
      expect(existsSync(path.join(DOCS, `${page}.md`)), page).toBe(true);
      expect(readme).toContain(`(docs/${page}.md)`);
    }
  });

  it('BENCHMARKS.md holds the current tables in at most 400 lines (the record is in git)', () => {
    expect(readFileSync(path.join(ROOT, 'BENCHMARKS.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(400);
  });

  it('every relative link resolves, anchors included', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of pages) {
      for (const link of linksOf(file)) {
        checked++;
        const [target, anchor] = link.split('#') as [string, string | undefined];
        const resolved = target === '' ? file : path.resolve(path.dirname(file), target);
        if (!existsSync(resolved)) broken.push(`${path.relative(ROOT, file)}: ${link} (no such file)`);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) broken.push(`${path.relative(ROOT, file)}: ${link} (no such heading)`);
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });
});

describe('the version', () => {
  it('package.json says the API version /openapi.json states (src/lib/version.ts)', async () => {
    const { API_VERSION } = await import('../../src/lib/version.js');
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(pkg.version).toBe(API_VERSION);
  });
});
