import { describe, expect, it } from 'vitest';
import { TEST_KEY, privateDatabase } from './helpers/server.js';
import { spawnServer } from './helpers/process.js';

/**
 * SIGTERM always ends the process within the grace period (plus a margin for the process to
 * stop): with a request that never ends in flight, and with nobody reading its stdout.
 */

const GRACE_MS = 1000;

const start = () => spawnServer(privateDatabase('gateway-shutdown-'), { API_KEYS: TEST_KEY, SHUTDOWN_GRACE_MS: String(GRACE_MS) });

describe('shutdown', () => {
  it('SIGTERM with a request that never ends in flight: the process exits within the grace period', async () => {
    const { child, url, exited } = start();
    const base = await url;
    // A subscription stream stays open for as long as the server lets it.
    const stream = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': TEST_KEY },
      body: JSON.stringify({ query: 'subscription { syncProgress { state } }' }),
    });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    await reader.read();
    const sent = Date.now();
    child.kill('SIGTERM');
    const { code, at } = await exited;
    expect(code).toBe(0);
    expect(at - sent).toBeLessThan(GRACE_MS + 3000);
    // The stream was cut (ended, or its connection closed), not left hanging.
    const outcome = await (async () => {
      for (;;) if ((await reader.read()).done) return 'ended';
    })().catch(() => 'closed');
    expect(['ended', 'closed']).toContain(outcome);
  }, 30_000);

  it('SIGTERM when nobody reads stdout any more: logging does not stall the exit', async () => {
    const { child, url, exited } = start();
    const base = await url;
    // Close our end of its stdout: every log line from now on meets a broken pipe.
    child.stdout!.destroy();
    for (let i = 0; i < 20; i++) {
      const r = await fetch(`${base}/api/zip/90210`, { headers: { 'x-api-key': TEST_KEY } });
      expect(r.status).toBe(200);
    }
    const sent = Date.now();
    child.kill('SIGTERM');
    const { code, at } = await exited;
    expect(code).toBe(0);
    expect(at - sent).toBeLessThan(GRACE_MS + 3000);
  }, 30_000);

  it("SIGTERM while stdout's reader has stopped reading (a full pipe), or exits meanwhile: every process ends gracefully, 20 times", async () => {
    const once = async (i: number) => {
      const { child, url, exited } = start();
      const base = await url;
      // Stop reading its stdout: the pipe fills, and so does the logger's buffer behind it.
      child.stdout!.pause();
      const long = `/api/zip/${'x'.repeat(8000)}`;
      for (let j = 0; j < 40; j++) await fetch(base + long, { headers: { 'x-api-key': TEST_KEY } }).then((r) => r.arrayBuffer());
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
    for (let i = 0; i < 20; i += 4) await Promise.all([i, i + 1, i + 2, i + 3].map(once));
  }, 120_000);
});
