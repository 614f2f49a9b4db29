import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { getJson, startTestServer, TEST_KEY } from './helpers/server.js';

/**
 * Generated from /openapi.json, so a new path or parameter is covered without a new test: every
 * GET path, each parameter in turn set to each hostile value below (the others at their
 * documented examples), asked for as JSON and, where the path offers it, as CSV. Never a 5xx,
 * never a dropped connection; every refusal is problem+json, and a 400 names the parameter,
 * each of its messages once.
 */

type Json = Record<string, any>;

/** As they go on the wire (already percent-encoded where they must be, `%FF` on purpose invalid UTF-8). */
const HOSTILE: Record<string, string> = {
  '2^31': '2147483648',
  '2^53 + 1': '9007199254740993',
  '-1': '-1',
  '-0': '-0',
  '1e309': '1e309',
  NaN: 'NaN',
  Infinity: 'Infinity',
  empty: '',
  'a space': '%20',
  '3,000 characters': '9'.repeat(3000),
  NUL: '%00',
  'a control character inside': 'a%01b',
  'a tab first': '%09x',
  'a line break last': 'x%0A',
  'a line separator last': 'x%E2%80%A8',
  'a byte order mark first': '%EF%BB%BFx',
  'a right-to-left mark': encodeURIComponent('\u200f'),
  'an emoji': encodeURIComponent('🏂'),
  'invalid UTF-8': '%FF',
  'a lone %': '%',
  'a broken escape': 'a%2',
  'a lone surrogate': '%ED%A0%80',
  '1,2,,3': '1,2,,3',
  quotes: encodeURIComponent(`"'\``),
  'a number between ideographic spaces': encodeURIComponent('\u30005\u3000'),
  'a number after a tab': '%095',
};

/**
 * Values no parameter takes: a control character is in no ZIP, id, name or number (SQLite's LIKE
 * stopped at a NUL and matched every resort; one at either end is not trimmed away), and bytes that are not percent-encoded UTF-8 are
 * refused in the query string as in the path. Each must be a 400 naming the parameter.
 */
const REFUSED_BY_ALL = new Set([
  'NUL',
  'a control character inside',
  'a tab first',
  'a line break last',
  'invalid UTF-8',
  'a lone %',
  'a broken escape',
  'a lone surrogate',
]);

/** Values a number parameter refuses: the number must be all there is (Number() would trim the spaces). */
const REFUSED_BY_NUMBERS = new Set(['a number between ideographic spaces', 'a number after a tab']);

/** Requests in flight at once: enough to keep the server busy, few enough for two shared cores. */
const CONCURRENCY = 4;

let app: RunningApp;
let doc: Json;
beforeAll(async () => {
  app = await startTestServer();
  doc = (await getJson(app, '/openapi.json', { apiKey: null })).body;
});
afterAll(() => app?.close());

interface Probe {
  url: string;
  accept: string;
  param: string;
  what: string;
  /** Only a 400 naming the parameter is right. */
  refused: boolean;
}

/** The value a parameter's example stands for on the wire (a list's items joined by commas). */
const exampleOf = (p: Json): string => encodeURIComponent(Array.isArray(p.example) ? p.example.join(',') : String(p.example));

/** Every probe of one GET operation: each parameter in turn at each hostile value, in each form the path answers. */
function probesOf(template: string, op: Json): Probe[] {
  const params: Json[] = op.parameters ?? [];
  const accepts = ['application/json', ...(op.responses?.['200']?.content?.['text/csv'] ? ['text/csv'] : [])];
  const out: Probe[] = [];
  for (const target of params) {
    for (const [what, hostile] of Object.entries(HOSTILE)) {
      let path = template;
      const query: string[] = [];
      for (const p of params) {
        const value = p === target ? hostile : exampleOf(p);
        if (p.in === 'path') path = path.replace(`{${p.name}}`, value);
        else query.push(`${p.name}=${value}`);
      }
      const url = query.length ? `${path}?${query.join('&')}` : path;
      const numeric = ['integer', 'number'].includes(target.schema?.type);
      const refused = REFUSED_BY_ALL.has(what) || (numeric && REFUSED_BY_NUMBERS.has(what));
      for (const accept of accepts) out.push({ url, accept, param: target.name, what, refused });
    }
  }
  return out;
}

/** Runs `work` over `items`, at most `n` at a time; every failure is collected, not just the first. */
async function inTurns<T>(items: readonly T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

describe('hostile values in every parameter of every GET path of /openapi.json', () => {
  it('are answered (never a 5xx or a dropped connection); every refusal is problem+json, a 400 naming the parameter; control characters, broken escapes and padded numbers always a 400', async () => {
    const gets = Object.entries(doc.paths as Json).filter(([, ops]) => ops.get);
    const probes = gets.flatMap(([template, ops]) => probesOf(template, ops.get));
    // The generator reads the document as it is: 19 GET paths with parameters today.
    expect(gets.filter(([, ops]) => ops.get.parameters?.length).length).toBeGreaterThanOrEqual(19);
    const wrong: string[] = [];
    await inTurns(probes, CONCURRENCY, async ({ url, accept, param, what, refused }) => {
      const label = `${param} = ${what}: GET ${url.length > 200 ? `${url.slice(0, 200)}…` : url} (${accept})`;
      let res: Response;
      let text: string;
      try {
        res = await fetch(app.url + url, { headers: { 'x-api-key': TEST_KEY, accept }, signal: AbortSignal.timeout(20_000) });
        text = await res.text();
      } catch (err) {
        wrong.push(`${label}: no answer (${(err as Error).cause ?? (err as Error).message})`);
        return;
      }
      const type = res.headers.get('content-type') ?? '';
      if (res.status >= 500) return void wrong.push(`${label}: ${res.status} ${text.slice(0, 200)}`);
      if (refused && res.status !== 400) return void wrong.push(`${label}: ${res.status}, not a 400 naming ${param}: ${text.slice(0, 200)}`);
      if (res.status >= 400) {
        if (!type.startsWith('application/problem+json')) return void wrong.push(`${label}: ${res.status} as ${type}`);
        const problem = JSON.parse(text) as { status: number; errors?: { name: string; message: string }[] };
        if (problem.status !== res.status) wrong.push(`${label}: problem status ${problem.status} on a ${res.status}`);
        const messages = problem.errors?.map((e) => e.message) ?? [];
        if (new Set(messages).size !== messages.length) wrong.push(`${label}: a message said twice: ${messages.join('; ')}`);
        const named = problem.errors?.some((e) => e.name === param || e.name.startsWith(`${param}.`));
        if (res.status === 400 && !named) wrong.push(`${label}: a 400 that does not name ${param}: ${text.slice(0, 300)}`);
        return;
      }
      const expected = accept === 'text/csv' ? 'text/csv' : 'application/json';
      if (res.status === 200 && !type.startsWith(expected)) wrong.push(`${label}: 200 as ${type}`);
    });
    expect(wrong).toEqual([]);
  });
});
