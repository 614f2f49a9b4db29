import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { TEST_KEY, privateDatabase } from './helpers/server.js';
import { spawnServer } from './helpers/process.js';
import { until } from './helpers/wait.js';

/**
 * SIGTERM always ends the process, by the graceful path (exit 0 after "shut down"; the hard-exit
 * timer exits 1 with a line of its own): with a request that never ends in flight, and with
 * nobody reading its stdout. What happened is asserted, never how many milliseconds it took.
 */

const GRACE_MS = 1000;

/**
 * A GET on a connection of its own, closed after the answer. Not fetch's pooled keep-alive
 * connections: with two CPU hogs beside the suite, this process was once starved long enough
 * between an answer and the next request that the server's keep-alive time-out closed the
 * connection as the request went out (ECONNRESET), which is HTTP/1.1's keep-alive race, not what
 * this file tests.
 */
const getOnItsOwnConnection = (url: string) =>
  new Promise<number>((resolve, reject) => {
    http
      .get(url, { agent: false, headers: { 'x-api-key': TEST_KEY } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
        res.on('error', reject);
      })
      .on('error', reject);
  });

const start = (graceMs = GRACE_MS) => spawnServer(privateDatabase('gateway-shutdown-'), { API_KEYS: TEST_KEY, SHUTDOWN_GRACE_MS: String(graceMs) });

describe('shutdown', () => {
  it('SIGTERM with a request that never ends in flight: new connections are refused at once, the stream is cut after the grace period, and the graceful path ends the process', async () => {
    // A grace period long enough that the refusal below is surely seen while the process lives.
    const server = start(4000);
    const base = await server.url;
    // A subscription stream stays open for as long as the server lets it.
    const stream = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': TEST_KEY },
      body: JSON.stringify({ query: 'subscription { syncProgress { state } }' }),
    });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    await reader.read();
    server.child.kill('SIGTERM');
    await until(
      async () => server.output(),
      (o) => o.includes('"msg":"shutting down"'),
    );
    // The stream holds the process for the grace period; meanwhile nobody new gets in.
    const refused = await fetch(`${base}/livez`).then(
      () => 'answered',
      (err: Error & { cause?: { code?: string } }) => err.cause?.code,
    );
    expect(server.child.exitCode, 'still running while it refused').toBeNull();
    expect(refused).toBe('ECONNREFUSED');
    // After the grace period the connection is closed under the stream (it never ends by itself).
    const outcome = await (async () => {
      for (;;) if ((await reader.read()).done) return 'ended';
    })().catch(() => 'cut');
    expect(outcome).toBe('cut');
    const { code } = await server.exited;
    // 0 and "shut down": app.close() finished; the hard-exit timer would exit 1 with its own line.
    expect(code).toBe(0);
    expect(server.output()).toContain('"msg":"shut down"');
    expect(server.output()).not.toContain('did not finish in time');
  }, 30_000);

  it('SIGTERM with a request in flight: it is answered in full within the grace period, then the process ends by the graceful path', async () => {
    const server = start(10_000);
    const base = new URL(await server.url);
    const body = JSON.stringify({ query: '{ zip(zip: "90210") { city } }' });
    const req = http.request({
      host: base.hostname,
      port: base.port,
      path: '/graphql',
      method: 'POST',
      agent: false,
      // 100-continue: the server says it has read the request's head (it is in flight) before the body goes.
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-api-key': TEST_KEY, expect: '100-continue' },
    });
    const inFlight = new Promise<void>((resolve) => req.once('continue', () => resolve()));
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
    });
    req.flushHeaders();
    await inFlight;
    server.child.kill('SIGTERM');
    await until(
      async () => server.output(),
      (o) => o.includes('"msg":"shutting down"'),
    );
    // The server is shutting down; the request it had begun is still served, body and all.
    req.end(body);
    const { status, text } = await answered;
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ data: { zip: { city: 'Beverly Hills' } } });
    const { code } = await server.exited;
    expect(code).toBe(0);
    expect(server.output()).toContain('"msg":"shut down"');
    expect(server.output()).not.toContain('did not finish in time');
  }, 30_000);

  it('SIGTERM when nobody reads stdout any more: logging does not stall the exit', async () => {
    const { child, url, exited } = start();
    const base = await url;
    // Close our end of its stdout: every log line from now on meets a broken pipe.
    child.stdout!.destroy();
    for (let i = 0; i < 20; i++) {
      expect(await getOnItsOwnConnection(`${base}/api/zip/90210`)).toBe(200);
    }
    child.kill('SIGTERM');
    // 0: the graceful path; the hard-exit timer exits with 1.
    expect((await exited).code).toBe(0);
  }, 30_000);

  it('a second signal ends the process at once, without waiting for the grace period', async () => {
    // A grace period far longer than the test may take: the stream holds the graceful path for
    // all of it, so only the second signal can end the process in time (with 1 s, a busy machine
    // let the grace period run out before the second signal came, and the graceful path won).
    const server = start(120_000);
    const base = await server.url;
    const stream = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': TEST_KEY },
      body: JSON.stringify({ query: 'subscription { syncProgress { state } }' }),
    });
    await stream.body!.getReader().read();
    server.child.kill('SIGTERM');
    await until(
      async () => server.output(),
      (o) => o.includes('"msg":"shutting down"'),
    );
    server.child.kill('SIGINT');
    const { code } = await server.exited;
    // 1 with the second signal's line: not the graceful path (0, "shut down") nor the timer's.
    expect(code).toBe(1);
    expect(server.output()).toContain('"msg":"second signal: exiting now"');
    expect(server.output()).not.toContain('"msg":"shut down"');
  }, 30_000);

  it("SIGTERM while stdout's reader has stopped reading (a full pipe), or exits meanwhile: every process ends gracefully, 12 times", async () => {
    const once = async (i: number) => {
      const { child, url, exited } = start();
      const base = await url;
      // Stop reading its stdout: the pipe fills, and so does the logger's buffer behind it.
      child.stdout!.pause();
      const long = `/api/zip/${'x'.repeat(8000)}`;
      for (let j = 0; j < 40; j++) await getOnItsOwnConnection(base + long);
      child.kill('SIGTERM');
      // Half of the runs: the reader goes away while the server stops.
      if (i % 2 === 1) setImmediate(() => child.stdout!.destroy());
      // Before, the process never exited here (a synchronous flush retried the full pipe forever);
      // this bound only keeps a failure from hanging the suite.
      const exit = await Promise.race([exited, new Promise<null>((r) => setTimeout(() => r(null), GRACE_MS + 15_000))]);
      if (!exit) child.kill('SIGKILL');
      expect(exit, `run ${i}: the process exited`).not.toBeNull();
      // 0: the graceful path (the hard-exit timer exits with 1).
      expect(exit!.code, `run ${i}`).toBe(0);
    };
    for (let i = 0; i < 12; i += 4) await Promise.all([i, i + 1, i + 2, i + 3].map(once));
  }, 120_000);
});
