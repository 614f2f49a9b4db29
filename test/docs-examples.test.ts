import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { privateDatabase, TEST_KEY } from './helpers/server.js';
import { spawnServer, type ServerProcess } from './helpers/process.js';
import { haveBrowser, launchChromium } from './helpers/chromium.js';
import { firstLogInBrowser, firstOutputInNode, firstServerSentEvent } from './helpers/doc-snippets.js';

/**
 * Every curl and GraphQL example of README.md and docs/, run as written against the bundle npm
 * start runs: a server started the way the example's block says (the environment before its
 * `npm start`, when it shows one), `localhost:4000` pointed at it and `$KEY` set to a key. An
 * example that stops working fails here. A curl example whose block shows the answer (a line
 * `"status":NNN`) must get that status; any other must get 200. A `curl -N` example (a stream)
 * must print a `next` event with data; a WebSocket client (a `ts` block importing graphql-ws) must
 * log its subscription's first event: in Node when it imports `ws`, else in Chromium.
 */

const ROOT = path.resolve(import.meta.dirname, '..');
const FILES = [
  path.join(ROOT, 'README.md'),
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(ROOT, 'docs', f)),
];

interface Block {
  file: string;
  lang: string;
  text: string;
}

const blocks: Block[] = FILES.flatMap((file) =>
  [...readFileSync(file, 'utf8').matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ file: path.relative(ROOT, file), lang: m[1]!, text: m[2]! })),
);

/** A shell block's commands, continuation lines joined, prompts and comments dropped. */
function commandsOf(text: string): string[] {
  return text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.replace(/^\$ /, '').trim())
    .filter((l) => l && !l.startsWith('#'));
}

/** The environment a block starts its server with: `VAR=value … npm start`. */
function environmentOf(text: string): Record<string, string> | null {
  const start = commandsOf(text).find((c) => /(^|\s)npm start\b/.test(c));
  if (!start) return null;
  return Object.fromEntries([...start.matchAll(/\b([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
}

const curlExamples = blocks
  .filter((b) => b.lang === 'sh')
  .flatMap((b) =>
    commandsOf(b.text)
      .filter((c) => c.startsWith('curl '))
      .map((command) => ({ ...b, command })),
  );
const graphqlExamples = blocks.filter((b) => b.lang === 'graphql');
/** `curl -N`: a stream, read to its first event (it would run until its --max-time). */
const isStream = (command: string) => /\s-N\s/.test(command);
const webSocketExamples = blocks
  .filter((b) => b.lang === 'ts' && /from 'graphql-ws'/.test(b.text))
  .map((b) => ({
    ...b,
    node: /from 'ws'/.test(b.text),
    // The first field the subscription selects: the first event shows it.
    field: /subscription\s*\{\s*\w+\s*(?:\([^)]*\))?\s*\{\s*(\w+)/.exec(b.text)?.[1] ?? '(no subscription found)',
  }));

/** Servers by the environment they were started with (most examples share the plain one). */
const servers = new Map<string, { server: ServerProcess; url: Promise<string> }>();
function serverFor(env: Record<string, string>): Promise<string> {
  const id = JSON.stringify(env);
  let known = servers.get(id);
  if (!known) {
    const server = spawnServer(privateDatabase('gateway-doc-examples-'), { API_KEYS: TEST_KEY, API_ADMIN_KEYS: TEST_KEY, ...env });
    known = { server, url: server.url };
    servers.set(id, known);
  }
  return known.url;
}
let browser: Promise<Browser> | null = null;
afterAll(async () => {
  await (await browser)?.close();
  for (const { server } of servers.values()) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
});

function bash(command: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile('bash', ['-c', command], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 20_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/** A stream's first `next` event, then the stream is let go. */
async function firstEvent(res: Response): Promise<unknown> {
  const reader = res.body!.getReader();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before an event: ${text.slice(0, 200)}`);
    text += new TextDecoder().decode(value);
    const event = /event: next\ndata: (.*)\n\n/.exec(text);
    if (event) {
      await reader.cancel();
      return JSON.parse(event[1]!);
    }
  }
}

describe('the documentation’s examples run as written', () => {
  it('finds the examples (a README without them would pass vacuously)', () => {
    expect(curlExamples.length).toBeGreaterThanOrEqual(14);
    expect(graphqlExamples.length).toBeGreaterThanOrEqual(5);
    expect(curlExamples.some((e) => environmentOf(e.text)?.GRAPHQL_TRUSTED_DOCUMENTS)).toBe(true);
    expect(curlExamples.filter((e) => isStream(e.command)).map((e) => e.file)).toEqual(expect.arrayContaining(['README.md', 'docs/graphql.md']));
    // Each WebSocket client shown both ways.
    expect(webSocketExamples.filter((e) => e.node).length).toBeGreaterThanOrEqual(2);
    expect(webSocketExamples.filter((e) => !e.node).length).toBeGreaterThanOrEqual(2);
  });

  for (const example of curlExamples.filter((e) => isStream(e.command))) {
    it(`${example.file}: ${example.command.slice(0, 110)}`, async () => {
      const base = await serverFor(environmentOf(example.text) ?? {});
      const { first, errors } = await firstServerSentEvent(example.command.replaceAll('localhost:4000', base.replace(/^http:\/\//, '')), { KEY: TEST_KEY });
      const event = JSON.parse(first) as { data?: Record<string, unknown>; errors?: unknown };
      expect(event.errors, first).toBeUndefined();
      expect(Object.values(event.data ?? {}).every((v) => v !== null)).toBe(true);
      expect(Object.keys(event.data ?? {}).length).toBeGreaterThan(0);
      // curl's own complaints (-N prints no progress meter: only an error would be here).
      expect(errors).not.toMatch(/curl: \(\d+\)/);
    });
  }

  for (const example of webSocketExamples) {
    it.skipIf(!example.node && !haveBrowser)(
      `${example.file}: ${example.node ? 'in Node' : 'in a browser'}: ${example.text.replace(/\s+/g, ' ').slice(0, 90)}`,
      async () => {
        const base = await serverFor({});
        const code = example.text.replaceAll('ws://localhost:4000', base.replace(/^http:/, 'ws:'));
        let out: { first: string; errors: string };
        if (example.node) out = await firstOutputInNode(code, example.field, { KEY: TEST_KEY });
        else {
          const page = await (await (browser ??= launchChromium())).newPage();
          try {
            await page.goto(`${base}/`);
            out = await firstLogInBrowser(page, code, TEST_KEY);
          } finally {
            await page.close();
          }
        }
        expect(out.first).toContain(example.field);
        expect(out.first).not.toMatch(/errors/);
        expect(out.errors).toBe('');
      },
      30_000,
    );
  }

  for (const example of curlExamples.filter((e) => !isStream(e.command))) {
    it(`${example.file}: ${example.command.slice(0, 110)}`, async () => {
      const base = await serverFor(environmentOf(example.text) ?? {});
      const command = `${example.command.replaceAll('localhost:4000', base.replace(/^http:\/\//, ''))} -sS -w '\\n%{http_code}'`;
      const r = await bash(command, { KEY: TEST_KEY });
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      const status = Number(lines.pop());
      const shown = /"status":(\d{3})/.exec(example.text.slice(example.text.indexOf(example.command.slice(0, 40))));
      // An answer other than 200 is shown in the block; a 204 or 206 would be an answer nobody showed.
      expect(status, lines.join('\n').slice(0, 300)).toBe(shown ? Number(shown[1]) : 200);
      const body = lines.join('\n');
      if (body.startsWith('{')) {
        const json = JSON.parse(body) as { errors?: unknown };
        if (!shown && command.includes('/graphql')) expect(json.errors, body.slice(0, 300)).toBeUndefined();
      }
    });
  }

  for (const example of graphqlExamples) {
    it(`${example.file}: ${example.text.replace(/\s+/g, ' ').slice(0, 100)}`, async () => {
      const base = await serverFor({});
      // A subscription is read over SSE, as its text says it is served: its first event.
      const subscription = /^\s*subscription\b/.test(example.text);
      const res = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, ...(subscription ? { accept: 'text/event-stream' } : {}) },
        body: JSON.stringify({ query: example.text }),
        signal: AbortSignal.timeout(15_000),
      });
      const body = (subscription ? await firstEvent(res) : await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
      expect(res.status).toBe(200);
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      expect(Object.values(body.data ?? {}).every((v) => v !== null)).toBe(true);
      expect(Object.keys(body.data ?? {}).length).toBeGreaterThan(0);
    });
  }
});
