import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { privateDatabase, TEST_KEY } from './helpers/server.js';
import { spawnServer, type ServerProcess } from './helpers/process.js';

/**
 * Every curl and GraphQL example of README.md and docs/, run as written against the bundle npm
 * start runs: a server started the way the example's block says (the environment before its
 * `npm start`, when it shows one), `localhost:4000` pointed at it and `$KEY` set to a key. An
 * example that stops working fails here. A curl example whose block shows the answer (a line
 * `"status":NNN`) must get that status; any other must get a 2xx.
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
afterAll(async () => {
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
  });

  for (const example of curlExamples) {
    it(`${example.file}: ${example.command.slice(0, 110)}`, async () => {
      const base = await serverFor(environmentOf(example.text) ?? {});
      const command = `${example.command.replaceAll('localhost:4000', base.replace(/^http:\/\//, ''))} -sS -w '\\n%{http_code}'`;
      const r = await bash(command, { KEY: TEST_KEY });
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      const status = Number(lines.pop());
      const shown = /"status":(\d{3})/.exec(example.text.slice(example.text.indexOf(example.command.slice(0, 40))));
      if (shown) expect(status).toBe(Number(shown[1]));
      else expect(status, lines.join('\n').slice(0, 300)).toBeGreaterThanOrEqual(200);
      if (!shown) expect(status).toBeLessThan(300);
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
