import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { connectMcp, disconnectMcp, toolText } from '../helpers/mcp.js';
import { getJson, TEST_KEY } from '../helpers/server.js';
import { startSourceApp, type SourceApp } from './app-world.js';
import { toolsResourcesAndPrompt } from '../helpers/mcp-cases.js';

/**
 * MCP at /mcp (transports/mcp/*) on the server built from src/, through the official SDK's client
 * and raw JSON-RPC: the tools (each operation file, called with good and bad arguments), resources,
 * the prompt, sessions as streams of their key, the idle time-out on the server's clock, and the
 * problems a request is answered with before the SDK sees it.
 */

const READER = 'szg_mcp_reader_key_without_admin';
const SESSIONS_KEY = 'szg_mcp_sessions_test_key';
const IDLE_MS = 60_000;
const _textOf = toolText;

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const JSON_RPC_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let app: SourceApp;
let admin: Client;
let reader: Client;
const connected: Awaited<ReturnType<typeof connectMcp>>[] = [];
const connect = async (key: string | null = TEST_KEY) => {
  const c = await connectMcp(app.url, key);
  connected.push(c);
  return c;
};
beforeAll(async () => {
  app = await startSourceApp('gateway-mcp-unit-', {
    env: { STREAMS_PER_KEY: '3', MCP_SESSION_IDLE_TIMEOUT_MS: String(IDLE_MS) },
    config: { apiKeys: [TEST_KEY, READER, SESSIONS_KEY] },
  });
  admin = (await connect()).client;
  reader = (await connect(READER)).client;
});
afterAll(async () => {
  for (const c of connected) await disconnectMcp(c).catch(() => {});
  await app?.close();
});

/** A session initialized by hand (no GET stream, nothing else sent): its id. */
async function rawSession(key: string): Promise<string> {
  const res = await getJson(app, '/mcp', { method: 'POST', apiKey: key, headers: JSON_RPC_HEADERS, body: JSON.stringify(INITIALIZE) });
  expect(res.status).toBe(200);
  return res.headers.get('mcp-session-id')!;
}
const inSession = (session: string, body: unknown, key = TEST_KEY) =>
  getJson(app, '/mcp', { method: 'POST', apiKey: key, headers: { ...JSON_RPC_HEADERS, 'mcp-session-id': session }, body: JSON.stringify(body) });

describe('MCP with the official SDK client', () => {
  it('initializes on the newest protocol version the SDK speaks, with tools, subscribable resources and prompts', async () => {
    const session = await connect();
    const { client, transport } = session;
    expect(transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(transport.sessionId).toMatch(/^[\w-]{16,}$/);
    expect(client.getServerVersion()).toMatchObject({ name: 'ski-zip-gateway' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: { subscribe: true }, prompts: {} });
    expect(client.getInstructions()).toMatch(/resort:\/\/\{id\}\/conditions/);
    await disconnectMcp(session);
  });

  it('without a key: 401 problem+json at the door, and the SDK client cannot connect', async () => {
    const res = await getJson(app, '/mcp', {
      method: 'POST',
      apiKey: null,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
    expect(res.status).toBe(401);
    expect(res.contentType).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
    await expect(connectMcp(app.url, null)).rejects.toThrow(/401/);
    await expect(connectMcp(app.url, 'szg_not_a_key_anyone_has')).rejects.toThrow(/401/);
  });

  toolsResourcesAndPrompt(() => ({ admin, reader }));
  it('a session belongs to its key: another key sending its id gets 404, as for a session that never was', async () => {
    const session = await connect();
    const { transport } = session;
    const send = (key: string) =>
      getJson(app, '/mcp', {
        method: 'POST',
        apiKey: key,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId! },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
      });
    const theirs = await send(READER);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect((await send(TEST_KEY)).status).toBe(200);
    await disconnectMcp(session);
  });

  it('two requests with one id at once in a session: the second is refused (409), the first answered; every one is answered', async () => {
    const session = await rawSession(TEST_KEY);
    const send = () =>
      getJson(app, '/mcp', {
        method: 'POST',
        headers: { ...JSON_RPC_HEADERS, 'mcp-session-id': session },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'same',
          method: 'tools/call',
          params: { name: 'resort_history', arguments: { id: 'alta', days: 90, years: 10, units: 'METRIC' } },
        }),
      }).then((r) => [r.status, r.body.code ?? r.body.result?.isError ?? false]);
    const answers = await Promise.all([send(), send()]);
    expect(answers.sort()).toEqual([
      [200, false],
      [409, 'CONFLICT'],
    ]);
    // Its id is free again once answered.
    expect((await send())[0]).toBe(200);
  });

  it('a request still running when its session is deleted, or cancelled by the client, is answered all the same', async () => {
    const session = await rawSession(TEST_KEY);
    const headers = { ...JSON_RPC_HEADERS, 'mcp-session-id': session };
    const call = (id: number) =>
      getJson(app, '/mcp', {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'resort_history', arguments: { id: 'taos', days: 90, years: 10 } } }),
        // Bounded: an unanswered request fails here instead of holding the test.
        signal: AbortSignal.timeout(15_000),
      }).then((r) => r.status);
    const cancelled = call(1);
    const cancel = await getJson(app, '/mcp', {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }),
    });
    expect(cancel.status).toBe(202);
    expect(await cancelled).toBe(200);
    const running = call(2);
    expect((await getJson(app, '/mcp', { method: 'DELETE', headers: { 'mcp-session-id': session } })).status).toBe(200);
    // Answered by the SDK if it finished first, else told the session ended.
    expect([200, 404]).toContain(await running);
  });

  it('bodies: not JSON, a batch, too deep, or a first message that is not initialize: 400 problem+json', async () => {
    const post = (body: string) =>
      getJson(app, '/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
    for (const [body, detail] of [
      ['{"jsonrpc":', /not JSON/],
      ['[{"jsonrpc":"2.0","id":1,"method":"ping"}]', /batches/],
      [`${'['.repeat(40)}${']'.repeat(40)}`, /nests deeper than 32/],
      ['{"jsonrpc":"2.0","id":1,"method":"tools/list"}', /must be an initialize request/],
      [
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5,"capabilities":{},"clientInfo":{"name":"x","version":"1"}}}',
        /must be an initialize request/,
      ],
    ] as const) {
      const res = await post(body);
      expect(res.status, body).toBe(400);
      expect(res.body.detail).toMatch(detail);
    }
    expect((await post('{"hello":"world"}')).body.detail).toMatch(/not a JSON-RPC 2.0 message/);
    // What the client sends and accepts, and the protocol version it names: problem+json too.
    const init = JSON.stringify(INITIALIZE);
    const asText = await getJson(app, '/mcp', { method: 'POST', headers: { 'content-type': 'text/plain', accept: JSON_RPC_HEADERS.accept }, body: init });
    expect([asText.status, asText.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const jsonOnly = await getJson(app, '/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: init });
    expect([jsonOnly.status, jsonOnly.body.code]).toEqual([406, 'NOT_ACCEPTABLE']);
    const version = await getJson(app, '/mcp', { method: 'POST', headers: { ...JSON_RPC_HEADERS, 'mcp-protocol-version': '1999-01-01' }, body: init });
    expect(version.status).toBe(400);
    expect(version.contentType).toMatch(/^application\/problem\+json/);
    expect(version.body.errors[0]).toMatchObject({ name: 'mcp-protocol-version', bound: expect.stringContaining(LATEST_PROTOCOL_VERSION) });
    const get = await getJson(app, '/mcp', { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(400);
    expect((await getJson(app, '/mcp', { method: 'PUT', body: '{}' })).headers.get('allow')).toBe('POST, GET, DELETE');
  });
});

describe('MCP sessions within the key’s limits, on the server’s clock', () => {
  it('a session with no request for the idle time-out ends (404 on its next message); one watching a resource stays', async () => {
    const idle = await connect();
    const watching = await connect();
    await watching.client.subscribeResource({ uri: 'resort://vail/conditions' });
    app.clock.advance(IDLE_MS);
    await expect(idle.client.listTools()).rejects.toThrow(/404/);
    expect((await watching.client.listTools()).tools.length).toBeGreaterThan(0);
    await watching.client.unsubscribeResource({ uri: 'resort://vail/conditions' });
    app.clock.advance(IDLE_MS);
    await expect(watching.client.listTools()).rejects.toThrow(/404/);
  });

  it('each session is one of its key’s streams: at the bound a session nobody listens on makes room, else initialize is refused (429)', async () => {
    // A key of this test's own, holding three places at most.
    const left = await rawSession(SESSIONS_KEY);
    const watching = await connect(SESSIONS_KEY);
    await watching.client.subscribeResource({ uri: 'resort://vail/conditions' });
    const listening = await connect(SESSIONS_KEY);
    // The bound is reached: the session left behind without DELETE makes room, and its id is gone.
    const third = await connect(SESSIONS_KEY);
    expect((await inSession(left, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, SESSIONS_KEY)).status).toBe(404);
    // All three listen now (a notification stream, a subscription): a fourth is refused with the bound.
    await expect(connectMcp(app.url, SESSIONS_KEY)).rejects.toThrow(/429.*at most 3 open at once per key/);
    await disconnectMcp(watching);
    const fourth = await connect(SESSIONS_KEY);
    expect((await fourth.client.listTools()).tools.length).toBeGreaterThan(0);
    for (const c of [listening, third, fourth]) await disconnectMcp(c);
  });

  it('a session runs at most 8 requests at once (429); a GET without a session is 400; a notification stream opens on GET', async () => {
    const session = await rawSession(TEST_KEY);
    const call = (id: number) =>
      inSession(session, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'resort_history', arguments: { id: 'taos', days: 90, years: 10 } } });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => call(i + 1)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(8);
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expect([refused.status, refused.body.code, refused.headers.get('retry-after')]).toEqual([429, 'TOO_MANY_REQUESTS', '1']);
    }
    const noSession = await getJson(app, '/mcp', { headers: { accept: 'text/event-stream' } });
    expect([noSession.status, noSession.body.detail]).toEqual([400, 'GET /mcp needs the mcp-session-id header of a session initialize made.']);
    const del = await getJson(app, '/mcp', { method: 'DELETE', headers: { 'mcp-session-id': session } });
    expect(del.status).toBe(200);
    expect((await inSession(session, { jsonrpc: '2.0', id: 99, method: 'ping' })).status).toBe(404);
  });
});
