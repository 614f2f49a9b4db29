import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build, transform } from 'esbuild';
import type { Page } from 'playwright-core';

/**
 * The documentation's streaming examples, run as a reader would run them and let go once they
 * have shown their first event: a `curl -N` line (which would run until its --max-time), and the
 * WebSocket clients of docs/graphql.md, in Node and in a browser (their subscriptions never end).
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

/** What a stream printed first, and whatever went to its error output meanwhile. */
export interface FirstOutput {
  first: string;
  errors: string;
}

/** Runs `file args…` until `done` finds what it waits for in its output, then ends its process group. */
function untilOutput(file: string, args: string[], env: Record<string, string>, done: (out: string) => string | null, ms: number): Promise<FirstOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: ROOT, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let errors = '';
    const stop = () => {
      clearTimeout(timer);
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Ended already.
      }
    };
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`nothing came within ${ms} ms; output: ${out.slice(0, 300)} ${errors.slice(0, 300)}`));
    }, ms);
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      const first = done(out);
      if (first === null) return;
      stop();
      resolve({ first, errors });
    });
    child.stderr!.on('data', (d: Buffer) => {
      errors += d;
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`it ended (${code}) before its first event: ${out.slice(0, 300)} ${errors.slice(0, 300)}`));
    });
  });
}

/** A `curl -N` subscription over SSE: its first `next` event's data. */
export function firstServerSentEvent(command: string, env: Record<string, string>, ms = 15_000): Promise<FirstOutput> {
  return untilOutput('bash', ['-c', command], env, (out) => /event: next\ndata: (.*)\n\n/.exec(out)?.[1] ?? null, ms);
}

/** A Node snippet, as its TypeScript is written, beside the project's node_modules: its output once it names `field`. */
export async function firstOutputInNode(code: string, field: string, env: Record<string, string>, ms = 15_000): Promise<FirstOutput> {
  const { code: js } = await transform(code, { loader: 'ts', format: 'esm', target: 'node20' });
  // In the suite's build directory (git-ignored): Node resolves the snippet's imports from there.
  const dir = mkdtempSync(path.join(ROOT, '.test-dist', 'doc-snippet-'));
  try {
    const file = path.join(dir, 'snippet.mjs');
    writeFileSync(file, js);
    return await untilOutput(process.execPath, [file], env, (out) => (out.includes(field) ? out : null), ms);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A browser snippet, bundled as a web app's bundler would, run in a page of the server (its origin
 * is one the server's WebSocket accepts) with `KEY` defined as the app would have it: the first
 * value it logs (as JSON), and any console error.
 */
export async function firstLogInBrowser(page: Page, code: string, key: string, ms = 15_000): Promise<FirstOutput> {
  const bundled = await build({
    stdin: { contents: `const KEY = ${JSON.stringify(key)};\n${code}`, loader: 'ts', resolveDir: ROOT },
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  const first = page.waitForEvent('console', { predicate: (m) => m.type() === 'log', timeout: ms });
  await page.addScriptTag({ content: bundled.outputFiles[0]!.text });
  const logged = await (await first).args()[0]?.jsonValue();
  return { first: JSON.stringify(logged) ?? 'undefined', errors: errors.join('\n') };
}
