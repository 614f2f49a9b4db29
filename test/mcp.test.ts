import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RunningApp } from '../src/app/start.js';
import { connectMcp, disconnectMcp, toolText } from './helpers/mcp.js';
import { getJson, privateDatabase, startTestServer, SYNC_RESORTS, TEST_KEY } from './helpers/server.js';
import { keysCli } from './helpers/process.js';
import { movableClock, runNow } from './helpers/clock.js';
import { contentText, operationsOnDisk, toolsResourcesAndPrompt } from './helpers/mcp-cases.js';

/**
 * MCP at /mcp, through the official SDK's client (Client + StreamableHTTPClientTransport) against
 * the bundle: the tools are the operation files, each called with good and bad arguments; keys,
 * scopes and quotas hold as on every path; sessions are streams of their key and end when idle.
 */

const READER = 'szg_mcp_reader_key_without_admin';
const IDLE_MS = 60_000;

const connect = (app: RunningApp, key: string | null = TEST_KEY) => connectMcp(app.url, key);
const disconnect = disconnectMcp;
const textOf = toolText;

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const JSON_RPC_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A session initialized by hand (no GET stream, nothing else sent): its id. */
async function rawSession(app: RunningApp, key: string): Promise<string> {
  const res = await getJson(app, '/mcp', { method: 'POST', apiKey: key, headers: JSON_RPC_HEADERS, body: JSON.stringify(INITIALIZE) });
  expect(res.status).toBe(200);
  return res.headers.get('mcp-session-id')!;
}

describe('MCP with the official SDK client', () => {
  let app: RunningApp;
  let admin: Client;
  let reader: Client;
  const connected: Awaited<ReturnType<typeof connect>>[] = [];
  beforeAll(async () => {
    app = await startTestServer({ dbPath: privateDatabase('gateway-mcp-', { resorts: SYNC_RESORTS }), config: { apiKeys: [TEST_KEY, READER] } });
    connected.push(await connect(app), await connect(app, READER));
    admin = connected[0]!.client;
    reader = connected[1]!.client;
  });
  afterAll(async () => {
    for (const c of connected) await disconnect(c);
    await app?.close();
  });

  it('initializes on the newest protocol version the SDK speaks, with tools, subscribable resources and prompts', async () => {
    const session = await connect(app);
    const { client, transport } = session;
    expect(transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(transport.sessionId).toMatch(/^[\w-]{16,}$/);
    expect(client.getServerVersion()).toMatchObject({ name: 'ski-zip-gateway' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: { subscribe: true }, prompts: {} });
    expect(client.getInstructions()).toMatch(/resort:\/\/\{id\}\/conditions/);
    await disconnect(session);
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
    await expect(connect(app, null)).rejects.toThrow(/401/);
    await expect(connect(app, 'szg_not_a_key_anyone_has')).rejects.toThrow(/401/);
  });

  toolsResourcesAndPrompt(() => ({ admin, reader }));
  it('a session belongs to its key: another key sending its id gets 404, as for a session that never was', async () => {
    const session = await connect(app);
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
    await disconnect(session);
  });

  it('two requests with one id at once in a session: the second is refused (409), the first answered; every one is answered', async () => {
    const session = await rawSession(app, TEST_KEY);
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
    const session = await rawSession(app, TEST_KEY);
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

  it('docs/mcp.md: the assistant’s configuration connects, and the SDK example runs as written', async () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../docs/mcp.md'), 'utf8');
    const entry = JSON.parse(/```json\n([\s\S]*?)```/.exec(doc)![1]!).mcpServers['ski-zip'];
    expect(entry).toMatchObject({ type: 'http', url: 'http://localhost:4000/mcp', headers: { 'x-api-key': 'YOUR_KEY' } });
    const configured = new Client({ name: 'assistant', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(entry.url.replace('http://localhost:4000', app.url)), {
      requestInit: { headers: { ...entry.headers, 'x-api-key': TEST_KEY } },
    });
    await configured.connect(transport);
    expect((await configured.listTools()).tools.length).toBe(operationsOnDisk().size);
    await disconnect({ client: configured, transport });

    const example = /```ts\n([\s\S]*?)```/.exec(doc)![1]!.replaceAll('http://localhost:4000', app.url);
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        path.resolve(import.meta.dirname, '../node_modules/.bin/tsx'),
        ['--input-type=module', '-e', example],
        { cwd: path.resolve(import.meta.dirname, '..'), env: { ...process.env, KEY: TEST_KEY }, timeout: 30_000 },
        (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr }),
      ),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).zip.nearbyResorts.map((r: { resort: { id: string } }) => r.resort.id)).toContain('vail');
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

describe('MCP within the key’s limits', () => {
  it('a key with a quota of 5 gets 5 answered calls, then a tool error saying the quota is used up; its session’s other messages do not count', async () => {
    const key = 'szg_mcp_quota_of_five_key';
    const app = await startTestServer({ privateDb: true, config: { apiKeys: [key], apiAdminKeys: [], apiKeysQuota: 5 } });
    try {
      const session = await connect(app, key);
      const { client } = session;
      await client.listTools();
      await client.listPrompts();
      // Calls: tools, a resource read and a resource subscription (a subscription is a request).
      const answers: CallToolResult[] = [];
      for (let i = 0; i < 2; i++) answers.push((await client.callTool({ name: 'zip_lookup', arguments: { zip: '05401' } })) as CallToolResult);
      expect(answers.map((a) => a.isError ?? false)).toEqual([false, false]);
      expect(contentText(await client.readResource({ uri: 'gateway://schema.graphql' }))).toMatch(/type Query/);
      expect(JSON.parse(contentText(await client.readResource({ uri: 'resort://vail/conditions' })))).toMatchObject({ id: 'vail' });
      await client.subscribeResource({ uri: 'resort://vail/conditions' });
      // The quota is used up: the next call says so, as a tool error, and the session stays (each call is refused by itself).
      const sixth = (await client.callTool({ name: 'zip_lookup', arguments: { zip: '05401' } })) as CallToolResult;
      expect(sixth.isError).toBe(true);
      expect(textOf(sixth)).toMatch(/^RATE_LIMITED: Monthly quota of 5 requests used up/);
      await expect(client.readResource({ uri: 'resort://vail/conditions' })).rejects.toThrow(/RATE_LIMITED: Monthly quota of 5/);
      await expect(client.subscribeResource({ uri: 'resort://zermatt/conditions' })).rejects.toThrow(/RATE_LIMITED: Monthly quota of 5/);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('zip_lookup');
      await disconnect(session);
    } finally {
      await app.close();
    }
  });

  it('a session with no request for the idle time-out ends (404 on its next message); one watching a resource stays', async () => {
    const clock = movableClock(runNow().toISOString());
    const app = await startTestServer({ privateDb: true, now: clock.now, config: { mcp: { sessionIdleTimeoutMs: IDLE_MS } } });
    onTestFinished(() => app.close());
    const idle = await connect(app);
    const watching = await connect(app);
    await watching.client.subscribeResource({ uri: 'resort://vail/conditions' });
    clock.advance(IDLE_MS + 1);
    await expect(idle.client.listTools()).rejects.toThrow(/404/);
    expect((await watching.client.listTools()).tools.length).toBeGreaterThan(0);
    await watching.client.unsubscribeResource({ uri: 'resort://vail/conditions' });
    clock.advance(IDLE_MS + 1);
    await expect(watching.client.listTools()).rejects.toThrow(/404/);
  });

  it('a key revoked while it holds a session: the session says why on its notification stream, which then closes, and the key is refused at the door', async () => {
    const dbPath = privateDatabase('gateway-mcp-');
    const app = await startTestServer({ dbPath });
    onTestFinished(() => app.close());
    const made = await keysCli(dbPath, 'create', '--name', 'mcp-agent');
    expect(made.status, made.stderr).toBe(0);
    const key = made.stdout.match(/szg_[\w-]+/)![0];
    const session = await rawSession(app, key);
    const stream = await fetch(`${app.url}/mcp`, { headers: { 'x-api-key': key, accept: 'text/event-stream', 'mcp-session-id': session } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    expect((await keysCli(dbPath, 'revoke', 'mcp-agent')).status).toBe(0);
    // The stream says why, then ends (bounded: a stream left open fails the test rather than hanging it).
    let text = '';
    const decoder = new TextDecoder();
    const ended = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'ended';
        text += decoder.decode(value, { stream: true });
      }
    })();
    expect(await Promise.race([ended, new Promise((r) => setTimeout(() => r('still open'), 10_000))])).toBe('ended');
    const said = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)));
    expect(said).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'error', logger: 'gateway', data: { status: 401, code: 'UNAUTHENTICATED', detail: 'The API key has been revoked.' } },
      },
    ]);
    const after = await getJson(app, '/mcp', {
      method: 'POST',
      apiKey: key,
      headers: { ...JSON_RPC_HEADERS, 'mcp-session-id': session },
      body: '{"jsonrpc":"2.0","id":2,"method":"ping"}',
    });
    expect(after.status).toBe(401);
    expect(after.body.detail).toBe('The API key has been revoked.');
  });

  it('each session is one of its key’s streams: at the bound a session nobody listens on makes room, else initialize is refused (429)', async () => {
    const app = await startTestServer({ privateDb: true, config: { streams: { perKey: 2 } } });
    onTestFinished(() => app.close());
    // A client that initialized and left without DELETE (no GET stream, nothing subscribed).
    const leftId = await rawSession(app, TEST_KEY);
    const watching = await connect(app);
    await watching.client.subscribeResource({ uri: 'resort://vail/conditions' });
    // The bound is reached: the session left behind makes room, and its id is gone.
    const second = await connect(app);
    await second.client.subscribeResource({ uri: 'resort://zermatt/weather' });
    const stale = await getJson(app, '/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': leftId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(stale.status).toBe(404);
    // Both listen now: a third is refused with the bound, and a DELETE gives a place back.
    await expect(connect(app)).rejects.toThrow(/429.*at most 2 open at once per key/);
    await disconnect(watching);
    const third = await connect(app);
    expect((await third.client.listTools()).tools.length).toBeGreaterThan(0);
    await disconnect(second);
    await disconnect(third);
  });
});
