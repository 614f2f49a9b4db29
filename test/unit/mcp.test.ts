import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { connectMcp, disconnectMcp, toolText } from '../helpers/mcp.js';
import { getJson, TEST_KEY } from '../helpers/server.js';
import { until } from '../helpers/wait.js';
import { loadMcp, noErrorLogged, startForTests, type SourceApp } from './app-world.js';
import { toolsResourcesAndPrompt } from '../helpers/mcp-cases.js';

/**
 * MCP at /mcp (transports/mcp/*) on the server built from src/, through the official SDK's client
 * and raw JSON-RPC: the tools (each operation file, called with good and bad arguments), resources,
 * the prompt, sessions as streams of their key, the idle time-out on the server's clock, and the
 * problems a request is answered with before the SDK sees it.
 */

const READER = 'szg_mcp_reader_key_without_admin';
const SESSIONS_KEY = 'szg_mcp_sessions_test_key';
const ALLOWED_ORIGIN = 'https://agents.example';
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
const connected: Awaited<ReturnType<typeof connectMcp>>[] = [];
const connect = async (key: string | null = TEST_KEY) => {
  const c = await connectMcp(app.url, key);
  connected.push(c);
  return c;
};
/**
 * An admin key's client and a reader's, connected by the first test that needs them: in a test, a
 * mutant that breaks initialize fails it. Connected in beforeAll, it would fail the hook instead,
 * and the file's tests would be skipped, which Stryker's vitest runner counts as survived.
 */
let clients: Promise<{ admin: Client; reader: Client }> | undefined;
const theClients = () => (clients ??= (async () => ({ admin: (await connect()).client, reader: (await connect(READER)).client }))());
beforeAll(async () => {
  app = await startForTests('gateway-mcp-unit-', {
    env: { STREAMS_PER_KEY: '3', MCP_SESSION_IDLE_TIMEOUT_MS: String(IDLE_MS), CORS_ORIGINS: ALLOWED_ORIGIN },
    // A line per request, with its cost.
    logLevel: 'info',
    config: { apiKeys: [TEST_KEY, READER, SESSIONS_KEY, 'szg_mcp_listeners_test_key', 'szg_mcp_order_test_key', 'szg_mcp_watching_test_key'] },
  });
  await loadMcp(app);
});
noErrorLogged(() => app);
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
    // Each handler on the session it was made for (a handler is made with its session: tested here, in the same test).
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['gateway://schema.graphql', 'gateway://openapi.json']);
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.name)).toEqual(['resort-conditions', 'resort-weather']);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['plan_ski_day']);
    expect((await client.getPrompt({ name: 'plan_ski_day', arguments: { zip: '81657' } })).messages).toHaveLength(1);
    await expect(client.readResource({ uri: 'resort://vail/lifts' })).rejects.toMatchObject({
      code: -32002,
      message: expect.stringContaining('No resource resort://vail/lifts: resources/list and resources/templates/list name them.'),
    });
    const unknown = (await client.callTool({ name: 'nearby_zips', arguments: { zip: '05401', x: 1, y: 2 } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect([unknown.isError, unknown.content[0]!.text]).toEqual([
      true,
      'BAD_USER_INPUT: nearby_zips takes no argument "x", "y"; it takes zip, radiusMiles, limit.',
    ]);
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

  toolsResourcesAndPrompt(theClients);
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

/** A raw POST to /mcp: these headers over the JSON-RPC ones, the body as given (a string is sent as is). */
const post = (body: unknown, headers: Record<string, string> = {}, key: string = TEST_KEY) =>
  getJson(app, '/mcp', {
    method: 'POST',
    apiKey: key,
    headers: { ...JSON_RPC_HEADERS, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('what a request must be before its message is read: problem+json', () => {
  it('methods other than POST, GET and DELETE: 405, naming the three in the detail and in Allow', async () => {
    for (const method of ['PUT', 'PATCH']) {
      const res = await getJson(app, '/mcp', { method, headers: JSON_RPC_HEADERS, body: JSON.stringify(INITIALIZE) });
      expect([res.status, res.body.code, res.body.detail, res.headers.get('allow')]).toEqual([
        405,
        'METHOD_NOT_ALLOWED',
        `${method} is not allowed here; use POST, GET, DELETE`,
        'POST, GET, DELETE',
      ]);
    }
    // Counted under MCP's route.
    const metrics = await (await fetch(`${app.url}/metrics`, { headers: { 'x-api-key': TEST_KEY } })).text();
    expect(metrics).toMatch(/\{route="\/mcp",method="PATCH",status="405"\} 1$/m);
  });

  it('a browser’s Origin: one CORS_ORIGINS allows, or the server’s own, initializes; another is 403', async () => {
    const foreign = await post(INITIALIZE, { origin: 'https://elsewhere.example' });
    expect([foreign.status, foreign.contentType, foreign.body.code, foreign.body.detail]).toEqual([
      403,
      expect.stringMatching(/^application\/problem\+json/),
      'FORBIDDEN',
      'The origin https://elsewhere.example may not use /mcp here (CORS_ORIGINS).',
    ]);
    expect((await post(INITIALIZE, { origin: ALLOWED_ORIGIN })).status).toBe(200);
    expect((await post(INITIALIZE, { origin: app.url })).status).toBe(200);
    // Not a URL at all: neither allowed nor the server's own.
    expect((await post(INITIALIZE, { origin: 'null' })).status).toBe(403);
  });

  it('the protocol version named: one the SDK serves, or 400 listing them', async () => {
    expect((await post(INITIALIZE, { 'mcp-protocol-version': LATEST_PROTOCOL_VERSION })).status).toBe(200);
    const old = await post(INITIALIZE, { 'mcp-protocol-version': '1999-01-01' });
    expect(old.body).toMatchObject({ status: 400, code: 'BAD_REQUEST', detail: 'Unsupported MCP protocol version in mcp-protocol-version.' });
    expect(old.body.errors).toEqual([
      {
        name: 'mcp-protocol-version',
        bound: `one of ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
        message: `mcp-protocol-version must be one of ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
      },
    ]);
  });

  it('a POST is application/json (any case, with parameters) and accepts both JSON and an event stream, in any order, with parameters', async () => {
    for (const headers of [
      { 'content-type': 'Application/JSON; charset=utf-8' } as Record<string, string>,
      { accept: 'text/event-stream;q=0.5 , application/json;q=0.9' },
      { accept: 'text/html,  application/json,text/event-stream' },
    ])
      expect((await post(INITIALIZE, headers)).status, JSON.stringify(headers)).toBe(200);
    const media = await post(INITIALIZE, { 'content-type': 'text/plain' });
    expect([media.status, media.body.code, media.body.detail]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE', 'An MCP message is sent as application/json.']);
    // A body without a content type at all.
    const bare = await getJson(app, '/mcp', {
      method: 'POST',
      headers: { accept: JSON_RPC_HEADERS.accept },
      body: new TextEncoder().encode(JSON.stringify(INITIALIZE)),
    });
    expect(bare.status).toBe(415);
    for (const accept of ['application/json', 'text/event-stream', '*/*', 'application/jsonx, text/event-stream']) {
      const res = await post(INITIALIZE, { accept });
      expect([res.status, res.body.code, res.body.detail], accept).toEqual([
        406,
        'NOT_ACCEPTABLE',
        'An MCP client accepts both application/json and text/event-stream (Streamable HTTP).',
      ]);
    }
  });

  it('a GET accepts an event stream; without a session it is 400, as is a DELETE; an unknown session is 404', async () => {
    const session = await rawSession(TEST_KEY);
    const json = await getJson(app, '/mcp', { headers: { accept: 'application/json', 'mcp-session-id': session } });
    expect([json.status, json.body.code, json.body.detail]).toEqual([
      406,
      'NOT_ACCEPTABLE',
      'GET /mcp opens a session’s notification stream: accept text/event-stream.',
    ]);
    const del = await getJson(app, '/mcp', { method: 'DELETE' });
    expect([del.status, del.body.code, del.body.detail]).toEqual([
      400,
      'BAD_REQUEST',
      'DELETE /mcp needs the mcp-session-id header of a session initialize made.',
    ]);
    const unknown = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': 'no-such-session' });
    expect([unknown.status, unknown.body.code, unknown.body.detail]).toEqual([
      404,
      'SESSION_NOT_FOUND',
      'No such MCP session: it ended (idle, deleted, or the server restarted) or was never made. Initialize a new one.',
    ]);
    expect((await getJson(app, '/mcp', { method: 'DELETE', headers: { 'mcp-session-id': session } })).status).toBe(200);
  });
});

describe('the message: one JSON-RPC 2.0 message, the first an initialize', () => {
  it('params that do not fit their method: JSON-RPC invalid params (-32602) naming each and what it must be, not an internal error; the session answers on', async () => {
    const session = await rawSession(TEST_KEY);
    for (const [method, params, said] of [
      ['resources/read', {}, 'params.uri: Invalid input: expected string, received undefined'],
      ['tools/call', { name: 5 }, 'params.name: Invalid input: expected string, received number'],
      [
        'logging/setLevel',
        { level: 'loud' },
        'params.level: Invalid option: expected one of "debug"|"info"|"notice"|"warning"|"error"|"critical"|"alert"|"emergency"',
      ],
    ] as const) {
      const res = await inSession(session, { jsonrpc: '2.0', id: 7, method, params });
      expect([res.status, res.headers.get('cache-control'), res.body], method).toEqual([
        200,
        'no-store',
        { jsonrpc: '2.0', id: 7, error: { code: -32602, message: `Invalid params for ${method}: ${said}` } },
      ]);
    }
    // A method MCP does not have stays the SDK's answer; a level that fits is taken.
    expect((await inSession(session, { jsonrpc: '2.0', id: 8, method: 'no/such', params: {} })).body).toMatchObject({ error: { code: -32601 } });
    expect((await inSession(session, { jsonrpc: '2.0', id: 9, method: 'logging/setLevel', params: { level: 'error' } })).body).toEqual({
      jsonrpc: '2.0',
      id: 9,
      result: {},
    });
  });

  it('not JSON, a batch, too deep, not JSON-RPC 2.0: 400 saying which, with the bound where there is one', async () => {
    const notJson = await post('{"jsonrpc":');
    expect(notJson.body).toMatchObject({ status: 400, code: 'BAD_REQUEST', detail: 'The body is not JSON: one JSON-RPC message.' });
    expect(notJson.body.errors).toBeUndefined();
    expect((await post([INITIALIZE])).body).toMatchObject({ code: 'BAD_REQUEST', detail: 'One JSON-RPC message per request: batches are not part of MCP.' });
    const deep = await post(`${'['.repeat(40)}${']'.repeat(40)}`);
    expect(deep.body).toMatchObject({
      code: 'BAD_REQUEST',
      detail: 'The body nests deeper than 32 levels.',
      errors: [{ name: 'body', bound: 'nested at most 32 levels', message: 'body must be nested at most 32 levels' }],
    });
    for (const wrong of [
      { ...INITIALIZE, jsonrpc: '1.0' },
      { jsonrpc: '2.0', id: 1 },
      { id: 1, method: 'initialize', params: INITIALIZE.params },
      'null',
      '"initialize"',
    ]) {
      const res = await post(wrong);
      expect([res.status, res.body.detail], JSON.stringify(wrong)).toEqual([
        400,
        'The body is not a JSON-RPC 2.0 message (jsonrpc, and a method or a result or an error).',
      ]);
    }
  });

  it('without a session, only a whole initialize request opens one: a notification named initialize, or another method, is 400', async () => {
    const { id: _, ...notification } = INITIALIZE;
    for (const first of [
      notification,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
    ]) {
      const res = await post(first);
      expect([res.status, res.body.code, res.body.detail], JSON.stringify(first)).toEqual([
        400,
        'BAD_REQUEST',
        'Without the mcp-session-id header, the message must be an initialize request (jsonrpc, id, method, params with protocolVersion, capabilities, clientInfo).',
      ]);
    }
    // A client's name in any script is read as UTF-8.
    const accented = await post({ ...INITIALIZE, params: { ...INITIALIZE.params, clientInfo: { name: 'Zürich-agent', version: '1' } } });
    expect(accented.status).toBe(200);
  });

  it('an initialize answers JSON (no stream), with the session’s id, uncached; the next messages name the session', async () => {
    const res = await post(INITIALIZE);
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toMatch(/no-store/);
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { serverInfo: { name: 'ski-zip-gateway' }, capabilities: { tools: {}, resources: { subscribe: true }, prompts: {}, logging: {} } },
    });
    const session = res.headers.get('mcp-session-id')!;
    const ping = await inSession(session, { jsonrpc: '2.0', id: 2, method: 'ping' });
    expect([ping.status, ping.body]).toEqual([200, { jsonrpc: '2.0', id: 2, result: {} }]);
  });

  it('a tool call’s cost is its request’s, as the request’s log line says; a ping costs nothing', async () => {
    const session = await rawSession(TEST_KEY);
    const costOf = async (body: unknown) => {
      const res = await inSession(session, body);
      expect(res.status).toBe(200);
      const id = res.headers.get('x-request-id');
      return app.log().find((l) => l.msg === 'request' && l.reqId === id)?.cost;
    };
    expect(await costOf({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'zip_lookup', arguments: { zip: '05401' } } })).toBeGreaterThan(0);
    expect(await costOf({ jsonrpc: '2.0', id: 2, method: 'ping' })).toBeUndefined();
  });

  it('a request named notifications/cancelled is no cancellation: the SDK answers it; a cancellation of nothing running is taken (202)', async () => {
    const session = await rawSession(TEST_KEY);
    const asRequest = await inSession(session, { jsonrpc: '2.0', id: 3, method: 'notifications/cancelled', params: { requestId: 1 } });
    expect(asRequest.status).toBe(200);
    expect(asRequest.body).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32601 } });
    expect((await inSession(session, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } })).status).toBe(202);
    // Still answering.
    expect((await inSession(session, { jsonrpc: '2.0', id: 4, method: 'ping' })).status).toBe(200);
  });

  it('a second request with the id of one running: 409 naming the id (its first 100 characters)', async () => {
    const session = await rawSession(TEST_KEY);
    const id = `${'x'.repeat(120)}`;
    const call = () =>
      inSession(session, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'resort_history', arguments: { id: 'snowmass', days: 90, years: 10 } } });
    const answers = await Promise.all([call(), call()]);
    const refused = answers.find((a) => a.status === 409)!;
    expect(refused.body).toMatchObject({
      code: 'CONFLICT',
      detail: `A request with the id "${'x'.repeat(99)} is still running in this session: give each its own id.`,
    });
    expect(answers.find((a) => a.status === 200)!.body.id).toBe(id);
  });
});

/** A session's notification stream (GET), open until aborted: its status and type, and a promise of its end. */
async function notificationStream(session: string, key: string) {
  const abort = new AbortController();
  const res = await fetch(`${app.url}/mcp`, { headers: { 'x-api-key': key, accept: 'text/event-stream', 'mcp-session-id': session }, signal: abort.signal });
  const ended = (async () => {
    const reader = res.body!.getReader();
    try {
      while (!(await reader.read()).done);
    } catch {
      // Aborted by the test.
    }
    return 'ended';
  })();
  return { status: res.status, type: res.headers.get('content-type'), abort: () => abort.abort(), ended };
}
const ping = (session: string, key: string) => inSession(session, { jsonrpc: '2.0', id: 'ping', method: 'ping' }, key).then((r) => r.status);
/** Bounded: a mutant that keeps a stream open fails the test in a second or two instead of holding it. */
const within = <T>(p: Promise<T>, ms = 2000) => Promise.race([p, new Promise<'still open'>((r) => setTimeout(() => r('still open'), ms))]);

describe('sessions at the key’s bound, and their notification streams', () => {
  it('an open notification stream keeps its session from being taken; a second one is refused and changes nothing; once closed, the session may be taken', async () => {
    const key = 'szg_mcp_listeners_test_key';
    const [a, b, c] = [await rawSession(key), await rawSession(key), await rawSession(key)];
    const streamA = await notificationStream(a, key);
    expect([streamA.status, streamA.type]).toEqual([200, 'text/event-stream']);
    const streamB = await notificationStream(b, key);
    // The SDK allows one stream a session: the second is refused, and its end does not free a's first.
    const second = await notificationStream(a, key);
    expect(second.status).toBe(409);
    await second.ended;
    app.clock.advance(1000);
    // c, the only session nobody listens on, makes room.
    const d = await rawSession(key);
    expect([await ping(a, key), await ping(b, key), await ping(c, key), await ping(d, key)]).toEqual([200, 200, 404, 200]);
    const streamD = await notificationStream(d, key);
    // All three listen: a fourth is refused.
    expect((await post(INITIALIZE, {}, key)).status).toBe(429);
    // a's stream closes: a may be taken (as soon as the server has seen the close).
    streamA.abort();
    await until(
      () => post(INITIALIZE, {}, key).then((r) => r.status),
      (s) => s === 200,
      2000,
      20,
    );
    expect([await ping(a, key), await ping(b, key), await ping(d, key)]).toEqual([404, 200, 200]);
    streamB.abort();
    streamD.abort();
  });

  it('a session with a resource subscribed is not taken, though it has no notification stream', async () => {
    const key = 'szg_mcp_watching_test_key';
    const watching = await rawSession(key);
    const subscribed = await inSession(watching, { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'resort://vail/conditions' } }, key);
    expect([subscribed.status, subscribed.body.result]).toEqual([200, {}]);
    app.clock.advance(1000);
    const [b, c] = [await rawSession(key), await rawSession(key)];
    // At the bound: b, the least recently active of those nobody listens to, makes room; the older watching one stays.
    await rawSession(key);
    expect([await ping(watching, key), await ping(b, key), await ping(c, key)]).toEqual([200, 404, 200]);
  });

  it('the session taken is its key’s least recently active one, from the same key', async () => {
    const key = 'szg_mcp_order_test_key';
    // Another key's session, older than all of them, is not this key's to take.
    const others = await rawSession(TEST_KEY);
    app.clock.advance(1000);
    const s1 = await rawSession(key);
    app.clock.advance(1000);
    const s2 = await rawSession(key);
    app.clock.advance(1000);
    const s3 = await rawSession(key);
    app.clock.advance(1000);
    expect(await ping(s1, key)).toBe(200);
    app.clock.advance(1000);
    // s2 is the least recently active now.
    const s4 = await rawSession(key);
    expect([await ping(s1, key), await ping(s2, key), await ping(s3, key), await ping(s4, key)]).toEqual([200, 404, 200, 200]);
    app.clock.advance(1000);
    // The pings above made s1, s3, s4 active in that order, at one instant; the clock moved, and s4 is used again.
    expect(await ping(s4, key)).toBe(200);
    await rawSession(key);
    expect(await ping(others, TEST_KEY)).toBe(200);
    expect([await ping(s1, key), await ping(s3, key), await ping(s4, key)]).toEqual([404, 200, 200]);
  });

  it('a session with no request for the idle time-out is ended by the sweep, its notification stream closed, though nobody asks', async () => {
    const session = await rawSession(TEST_KEY);
    const stream = await notificationStream(session, TEST_KEY);
    expect(stream.status).toBe(200);
    app.clock.advance(IDLE_MS - 1);
    // Not yet idle: the sweep (each second) leaves it, and a request finds it.
    expect(await within(stream.ended, 1100)).toBe('still open');
    expect(await ping(session, TEST_KEY)).toBe(200);
    app.clock.advance(IDLE_MS);
    expect(await within(stream.ended, 2500)).toBe('ended');
    expect(await ping(session, TEST_KEY)).toBe(404);
  });
});

describe('requests running in a session', () => {
  /** A call that takes a while (a resort's ten seasons, computed once per resort: each resort here is used only once in this file). */
  const slowCall = (session: string, id: number, resort: string) =>
    inSession(session, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'resort_history', arguments: { id: resort, days: 90, years: 10 } } });

  it('at most 8 at once: a ninth is 429 with the bound, the others answered', async () => {
    const session = await rawSession(TEST_KEY);
    const resorts = [
      'beaver-creek',
      'breckenridge',
      'keystone',
      'copper-mountain',
      'arapahoe-basin',
      'winter-park',
      'aspen-mountain',
      'aspen-highlands',
      'buttermilk',
    ];
    const answers = await Promise.all(resorts.map((r, i) => slowCall(session, i + 1, r)));
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.headers.get('retry-after')).toBe('1');
    expect(refused[0]!.body).toMatchObject({
      status: 429,
      code: 'TOO_MANY_REQUESTS',
      detail: 'This session already runs 8 requests; wait for an answer first.',
      errors: [{ name: 'requests', bound: 'at most 8 running at once per session', message: 'requests must be at most 8 running at once per session' }],
    });
    for (const a of answers.filter((x) => x.status === 200)) expect(a.body.result.isError ?? false).toBe(false);
  });
});
