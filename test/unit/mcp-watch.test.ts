import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectMcp, disconnectMcp, toolText } from '../helpers/mcp.js';
import { TEST_KEY } from '../helpers/server.js';
import { until } from '../helpers/wait.js';
import { keyOfItsOwn, liveSubscribers, loadMcp, noErrorLogged, startForTests, subscribersBecome, type SourceApp } from './app-world.js';

/**
 * MCP's resource subscriptions (transports/mcp/session.ts, watch.ts) on the server built from src/:
 * a session's watched resorts are one conditionsChanged subscription of the live feed, and each
 * change of a watched resort (here the hour turning on the server's clock, which the feed checks
 * every 100 ms) is a notifications/resources/updated for each URI subscribed, through the official
 * SDK's client. Also what a key's quota and the request deadline do to calls.
 */

const HOUR = 3_600_000;
const RESORT_IDS: string[] = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../data/resorts.json'), 'utf8')).map((r: { id: string }) => r.id);

let app: SourceApp;
beforeAll(async () => {
  app = await startForTests('gateway-mcp-watch-', { env: { LIVE_CHECK_MS: '100', STREAMS_PER_KEY: '20' } });
  await loadMcp(app);
});
noErrorLogged(() => app);
afterAll(() => app?.close());

/** An SDK client whose resource updates are collected, ended (DELETE) after the test. */
async function watcher(url = app.url, key = TEST_KEY) {
  const mcp = await connectMcp(url, key);
  onTestFinished(() => disconnectMcp(mcp).catch(() => {}));
  const updated: string[] = [];
  mcp.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
  return { ...mcp, updated };
}
/** Waits (bounded) until `w` has had `n` updates; then its updates, sorted. */
const updatesOf = async (w: { updated: string[] }, n: number) => {
  await until(
    async () => w.updated.length,
    (got) => got >= n,
    3000,
    20,
  );
  return [...w.updated].sort();
};
/** The next hour on the server's clock: every watched resort's report changes (HOUR). */
const nextHour = () => app.clock.advance(HOUR);

describe('subscribed resources are told when their resort changes', () => {
  it('each URI subscribed once, however spelt, after the first report (not for it); a resort let go is not told', async () => {
    const before = await liveSubscribers(app);
    const w = await watcher();
    for (const uri of ['resort://vail/conditions', 'resort://VAIL/weather', 'resort://zermatt/conditions', 'resort://vail/conditions', 'resort://alta/weather'])
      expect(await w.client.subscribeResource({ uri })).toEqual({});
    expect(await w.client.unsubscribeResource({ uri: 'resort://alta/weather' })).toEqual({});
    // One subscription of the live feed for all of them, the first reports read (and not told).
    await subscribersBecome(app, before + 1);
    await w.client.ping();
    expect(w.updated).toEqual([]);
    nextHour();
    expect(await updatesOf(w, 3)).toEqual(['resort://vail/conditions', 'resort://vail/weather', 'resort://zermatt/conditions']);
    // Once each: a second session's update (the same round of the feed) comes, and none more here.
    const sentinel = await watcher();
    await sentinel.client.subscribeResource({ uri: 'resort://zermatt/weather' });
    await subscribersBecome(app, before + 2);
    nextHour();
    expect(await updatesOf(sentinel, 1)).toEqual(['resort://zermatt/weather']);
    expect(await updatesOf(w, 6)).toEqual([
      'resort://vail/conditions',
      'resort://vail/conditions',
      'resort://vail/weather',
      'resort://vail/weather',
      'resort://zermatt/conditions',
      'resort://zermatt/conditions',
    ]);
  });

  it('unsubscribed: one view of two keeps its resort watched; the last lets the live feed go; a URI never subscribed is nothing', async () => {
    const before = await liveSubscribers(app);
    const w = await watcher();
    await w.client.subscribeResource({ uri: 'resort://vail/conditions' });
    await w.client.subscribeResource({ uri: 'resort://vail/weather' });
    for (const uri of ['resort://vail/conditions', 'resort://zermatt/conditions', 'gateway://schema.graphql', 'file:///etc/passwd'])
      expect(await w.client.unsubscribeResource({ uri })).toEqual({});
    await subscribersBecome(app, before + 1);
    nextHour();
    expect(await updatesOf(w, 1)).toEqual(['resort://vail/weather']);
    await w.client.unsubscribeResource({ uri: 'resort://VAIL/weather' });
    await subscribersBecome(app, before);
    // Watched again from nothing: one subscription again.
    await w.client.subscribeResource({ uri: 'resort://alta/conditions' });
    await subscribersBecome(app, before + 1);
    nextHour();
    expect(await updatesOf(w, 2)).toEqual(['resort://alta/conditions', 'resort://vail/weather']);
  });

  it('a session ended (DELETE) lets its watch go', async () => {
    const before = await liveSubscribers(app);
    const mcp = await connectMcp(app.url);
    await mcp.client.subscribeResource({ uri: 'resort://taos/conditions' });
    await subscribersBecome(app, before + 1);
    await disconnectMcp(mcp);
    await subscribersBecome(app, before);
  });
});

describe('a key revoked while its session listens', () => {
  it('the session says why on its notification stream (an MCP log message, the problem as its data), then ends and lets its watch go', async () => {
    const { key, revoke } = keyOfItsOwn(app, 'mcp-watch');
    const w = await watcher(app.url, key);
    const said: unknown[] = [];
    w.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void said.push(n.params));
    // Its notification stream is open once an update has come on it.
    const before = await liveSubscribers(app);
    await w.client.subscribeResource({ uri: 'resort://vail/conditions' });
    await subscribersBecome(app, before + 1);
    nextHour();
    expect(await updatesOf(w, 1)).toEqual(['resort://vail/conditions']);
    // Within a check of the keys holding streams (every 250 ms).
    revoke();
    await until(
      async () => said.length,
      (n) => n > 0,
      3000,
      20,
    );
    expect(said).toEqual([{ level: 'error', logger: 'gateway', data: { status: 401, code: 'UNAUTHENTICATED', detail: 'The API key has been revoked.' } }]);
    await subscribersBecome(app, before);
  });
});

describe('what may be subscribed to', () => {
  it('only a resort’s views: a document, another URI or a resort that does not exist is a JSON-RPC error, and the watch stays as it was', async () => {
    const w = await watcher();
    await w.client.subscribeResource({ uri: 'resort://vail/conditions' });
    for (const uri of ['gateway://schema.graphql', 'file:///etc/passwd'])
      await expect(w.client.subscribeResource({ uri })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining(`Only resort resources change: ${uri} cannot be subscribed to.`),
      });
    await expect(w.client.subscribeResource({ uri: 'resort://no-such-resort/conditions' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/NOT_FOUND: .*no-such-resort/),
    });
    nextHour();
    expect(await updatesOf(w, 1)).toEqual(['resort://vail/conditions']);
  });

  it('at most 50 resorts a session; another view of one watched still may be', async () => {
    const w = await watcher();
    const ids = RESORT_IDS.slice(0, 51);
    for (const id of ids.slice(0, 50)) await w.client.subscribeResource({ uri: `resort://${id}/conditions` });
    await expect(w.client.subscribeResource({ uri: `resort://${ids[50]}/conditions` })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('A session watches at most 50 resorts; unsubscribe from one first.'),
    });
    expect(await w.client.subscribeResource({ uri: `resort://${ids[0]}/weather` })).toEqual({});
  });
});

describe('a key’s quota', () => {
  const QUOTA = 'szg_mcp_quota_of_four_key';
  let limited: SourceApp;
  beforeAll(async () => {
    limited = await startForTests('gateway-mcp-quota-', { env: { LIVE_CHECK_MS: '100' }, config: { apiKeys: [QUOTA, TEST_KEY], apiKeysQuota: 4 } });
    await loadMcp(limited);
  });
  afterAll(() => limited?.close());

  it('a key out of quota: each call a RATE_LIMITED error, the session kept, its resource updates stopped', async () => {
    const w = await watcher(limited.url, QUOTA);
    // Another key's session, told of the same changes: when it is told, the limited one would have been.
    const sentinel = await watcher(limited.url, TEST_KEY);
    await sentinel.client.subscribeResource({ uri: 'resort://vail/weather' });
    // Four calls: a subscription, a read of each kind, a tool.
    await w.client.subscribeResource({ uri: 'resort://vail/conditions' });
    // Another view of a resort already watched is no new call.
    await w.client.subscribeResource({ uri: 'resort://vail/weather' });
    expect((await w.client.readResource({ uri: 'gateway://schema.graphql' })).contents).toHaveLength(1);
    expect((await w.client.readResource({ uri: 'resort://vail/conditions' })).contents).toHaveLength(1);
    expect(((await w.client.callTool({ name: 'zip_lookup', arguments: { zip: '05401' } })) as CallToolResult).isError ?? false).toBe(false);
    const over = (await w.client.callTool({ name: 'zip_lookup', arguments: { zip: '05401' } })) as CallToolResult;
    expect([over.isError, toolText(over)]).toEqual([true, expect.stringMatching(/^RATE_LIMITED: Monthly quota of 4 requests used up/)]);
    // A document read is refused before it is made (InvalidRequest); a resort's read is an operation whose errors are InvalidParams.
    for (const [uri, code] of [
      ['gateway://schema.graphql', -32600],
      ['resort://vail/conditions', -32602],
    ] as const)
      await expect(w.client.readResource({ uri })).rejects.toMatchObject({ code, message: expect.stringMatching(/RATE_LIMITED: Monthly quota of 4/) });
    await expect(w.client.subscribeResource({ uri: 'resort://zermatt/conditions' })).rejects.toMatchObject({
      code: -32600,
      message: expect.stringMatching(/RATE_LIMITED: Monthly quota of 4/),
    });
    expect((await w.client.listTools()).tools.length).toBeGreaterThan(0);
    // Within a check of the keys holding streams (every 250 ms), its watch ends: a view of vail is
    // a new resort to watch again, a call the quota refuses (while watched, it was none).
    await until(
      () =>
        w.client.subscribeResource({ uri: 'resort://vail/weather' }).then(
          () => 'still watched',
          (err: Error) => err.message,
        ),
      (said) => /RATE_LIMITED/.test(said),
      2000,
      20,
    );
    limited.clock.advance(HOUR);
    expect(await updatesOf(sentinel, 1)).toEqual(['resort://vail/weather']);
    // (Nothing watched, an hour without a request: the session has gone idle by now.)
    expect(w.updated).toEqual([]);
  });
});

describe('the request deadline', () => {
  let slow: SourceApp;
  beforeAll(async () => {
    // A deadline of 1 ms (below what EXECUTION_TIMEOUT_MS takes): every call of any weight passes it.
    slow = await startForTests('gateway-mcp-deadline-', { config: { executionTimeoutMs: 1 } });
    await loadMcp(slow);
  });
  afterAll(() => slow?.close());

  it('a call past the request deadline is a TIMEOUT tool error; the session answers on', async () => {
    const w = await watcher(slow.url);
    const answer = (await w.client.callTool({ name: 'resort_history', arguments: { id: 'alta', days: 90, years: 10 } })) as CallToolResult;
    expect([answer.isError, toolText(answer)]).toEqual([true, expect.stringMatching(/^TIMEOUT: /)]);
    expect((await w.client.listTools()).tools.length).toBeGreaterThan(0);
  });
});

describe('a key’s rate', () => {
  let paced: SourceApp;
  beforeAll(async () => {
    paced = await startForTests('gateway-mcp-rate-', { config: { apiKeysRate: 2 } });
    await loadMcp(paced);
  });
  afterAll(() => paced?.close());

  it('a call counts against the quota, not the rate again: its message was counted at the door', async () => {
    const post = (body: unknown, session?: string) =>
      fetch(`${paced.url}/mcp`, {
        method: 'POST',
        headers: {
          'x-api-key': TEST_KEY,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(session ? { 'mcp-session-id': session } : {}),
        },
        body: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const session = init.headers.get('mcp-session-id')!;
    // A new second on the server's clock: two messages, a call and a ping, within the rate of 2.
    paced.clock.advance(1000);
    const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'zip_lookup', arguments: { zip: '05401' } } }, session);
    expect(((await call.json()) as { result: CallToolResult }).result.isError ?? false).toBe(false);
    expect((await post({ jsonrpc: '2.0', id: 3, method: 'ping' }, session)).status).toBe(200);
    // A third in that second: the rate.
    expect((await post({ jsonrpc: '2.0', id: 4, method: 'ping' }, session)).status).toBe(429);
  });
});
