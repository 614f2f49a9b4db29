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
});
