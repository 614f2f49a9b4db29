import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LATEST_PROTOCOL_VERSION, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectMcp, disconnectMcp, toolText } from '../helpers/mcp.js';
import { getJson, TEST_KEY } from '../helpers/server.js';
import { startSourceApp, type SourceApp } from './app-world.js';

/**
 * MCP at /mcp (transports/mcp/*) on the server built from src/, through the official SDK's client
 * and raw JSON-RPC: the tools (each operation file, called with good and bad arguments), resources,
 * the prompt, sessions as streams of their key, the idle time-out on the server's clock, and the
 * problems a request is answered with before the SDK sees it.
 */

const OPERATIONS_DIR = path.resolve(import.meta.dirname, '../../src/transports/mcp/operations');
const READER = 'szg_mcp_reader_key_without_admin';
const SESSIONS_KEY = 'szg_mcp_sessions_test_key';
const IDLE_MS = 60_000;
const textOf = toolText;

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

/** A read resource's text. */
const contentText = (r: { contents: ({ text: string } | { blob: string })[] }) => {
  const first = r.contents[0]!;
  if (!('text' in first)) throw new Error('a resource read as a blob');
  return first.text;
};

/** The operations on disk, by the tool name each must have (ZipLookup: zip_lookup) and its description (its opening comment). */
function operationsOnDisk(): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of readdirSync(OPERATIONS_DIR).filter((f) => f.endsWith('.graphql'))) {
    const text = readFileSync(path.join(OPERATIONS_DIR, file), 'utf8');
    const name = /^(?:query|mutation)\s+(\w+)/m.exec(text)![1]!;
    const description = text
      .split('\n')
      .filter((l) => l.startsWith('#'))
      .map((l) => l.slice(1).trim())
      .join(' ');
    out.set(name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase(), description);
  }
  return out;
}

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

  it('tools/list: one tool per operation file, its description the file’s opening comment, schemas derived from the operation with the parameters’ bounds', async () => {
    const { tools } = await admin.listTools();
    const onDisk = operationsOnDisk();
    expect(new Set(tools.map((t) => t.name))).toEqual(new Set(onDisk.keys()));
    for (const tool of tools) {
      expect(tool.description).toBe(onDisk.get(tool.name));
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    // The bounds are the REST parameters' (src/validation/), not restated here.
    expect(byName.get('zip_lookup')!.inputSchema).toMatchObject({ properties: { zip: { type: 'string', pattern: '^\\d{5}$' } }, required: ['zip'] });
    expect(byName.get('nearby_zips')!.inputSchema.properties).toMatchObject({
      radiusMiles: { type: 'number', exclusiveMinimum: 0, maximum: 200 },
      limit: { type: 'integer', minimum: 1, maximum: 200 },
    });
    expect(byName.get('resorts_near_zip')!.inputSchema.properties).toMatchObject({
      radiusMiles: { maximum: 500 },
      limit: { maximum: 50 },
      units: { enum: ['METRIC', 'IMPERIAL'] },
    });
    expect(byName.get('zips_near_point')!.inputSchema).toMatchObject({
      properties: { lat: { minimum: -90, maximum: 90 }, lng: { minimum: -180, maximum: 180 } },
      required: ['lat', 'lng'],
    });
    expect(byName.get('city_zips')!.inputSchema.properties).toMatchObject({ name: { maxLength: 100 }, state: { pattern: '^[A-Za-z]{2}$' } });
    expect(byName.get('zip_lookup')!.outputSchema).toMatchObject({
      properties: {
        zip: { type: ['object', 'null'], properties: { city: { type: 'string' }, lat: { type: 'number' } }, required: expect.arrayContaining(['zip', 'city']) },
      },
    });
    expect(byName.get('run_sync')!.annotations).toMatchObject({ readOnlyHint: false });
    expect(byName.get('zip_lookup')!.annotations).toMatchObject({ readOnlyHint: true });
  });

  // Each tool with arguments that work, what its answer must say, and arguments it must refuse naming the parameter.
  const CASES: { tool: string; good: Record<string, unknown>; check: (data: any) => void; bad?: Record<string, unknown>; names?: RegExp }[] = [
    {
      tool: 'zip_lookup',
      good: { zip: '05401' },
      check: (d) => expect(d.zip).toMatchObject({ zip: '05401', city: 'Burlington', stateCode: 'VT' }),
      bad: { zip: '5401' },
      names: /zip must be/,
    },
    {
      tool: 'nearby_zips',
      good: { zip: '05401', radiusMiles: 5, limit: 3 },
      check: (d) => {
        expect(d.nearbyZips.center.zip).toBe('05401');
        expect(d.nearbyZips.results).toHaveLength(3);
        expect(d.nearbyZips.results[0].distanceMiles).toBeLessThanOrEqual(d.nearbyZips.results[2].distanceMiles);
      },
      bad: { zip: '05401', radiusMiles: 201 },
      names: /radiusMiles must be/,
    },
    {
      tool: 'zips_near_point',
      good: { lat: 44.4759, lng: -73.2121, limit: 2 },
      check: (d) => expect(d.zipsNear.map((z: { stateCode: string }) => z.stateCode)).toEqual(['VT', 'VT']),
      bad: { lat: 91, lng: 0 },
      names: /lat must be/,
    },
    {
      tool: 'zip_distance',
      good: { from: '10001', to: '90001' },
      check: (d) => expect(d.zipDistance.distanceMiles).toBeGreaterThan(2400),
      bad: { from: '10001' },
      names: /\$to/,
    },
    {
      tool: 'resorts_near_zip',
      good: { zip: '81657', radiusMiles: 60, limit: 5 },
      check: (d) => expect(d.zip.nearbyResorts.map((r: { resort: { id: string } }) => r.resort.id)).toContain('vail'),
      bad: { zip: '81657', limit: 51 },
      names: /limit must be/,
    },
    {
      tool: 'resort_conditions',
      good: { id: 'vail', units: 'IMPERIAL' },
      check: (d) => expect(d.resort).toMatchObject({ id: 'vail', conditions: { units: { system: 'IMPERIAL', depth: 'in' } } }),
      bad: { id: 'no-such-resort' },
      names: /NOT_FOUND/,
    },
    {
      tool: 'resort_forecast',
      good: { id: 'zermatt' },
      check: (d) => expect(d.resort.weather.forecast).toHaveLength(7),
      bad: { id: 'vail', units: 'KELVIN' },
      names: /\$units/,
    },
    {
      tool: 'best_snow',
      good: { limit: 3 },
      check: (d) => expect(d.topSnow.resorts.length).toBeLessThanOrEqual(3),
      bad: { limit: 0 },
      names: /limit must be/,
    },
    {
      tool: 'storm_watch',
      good: { limit: 2 },
      check: (d) => expect(d.stormWatch.resorts.length).toBeLessThanOrEqual(2),
      bad: { limit: 99 },
      names: /limit must be/,
    },
    { tool: 'states', good: {}, check: (d) => expect(d.states).toHaveLength(51), bad: { state: 'VT' }, names: /takes no argument "state"/ },
    {
      tool: 'city_zips',
      good: { name: 'Burlington', state: 'VT' },
      check: (d) => expect(d.city.zipcodes.map((z: { zip: string }) => z.zip)).toContain('05401'),
      bad: { name: 'Burlington', state: 'Vermont' },
      names: /state must be/,
    },
    {
      tool: 'cities',
      good: { prefix: 'Burling', state: 'VT' },
      check: (d) => expect(d.cities[0]).toMatchObject({ city: 'Burlington', stateCode: 'VT' }),
      bad: { prefix: 'x'.repeat(101) },
      names: /prefix must be/,
    },
    {
      tool: 'resort_history',
      good: { id: 'vail', days: 7, years: 1, units: 'IMPERIAL' },
      check: (d) => expect(d.resort.history).toMatchObject({ parameters: { days: 7, years: 1 }, units: { depth: 'in' } }),
      bad: { id: 'vail', days: 3 },
      names: /days must be/,
    },
    { tool: 'sync_status', good: {}, check: (d) => expect(d.syncStatus.state).toMatch(/^(IDLE|RUNNING)$/) },
    // Last: it starts a run (of the few resorts this server's database keeps).
    {
      tool: 'run_sync',
      good: {},
      check: (d) => expect(d.runSync.state).toBe('RUNNING'),
      bad: { force: true },
      names: /takes no argument "force"; it takes none/,
    },
  ];

  for (const c of CASES) {
    it(`${c.tool}: good arguments answer structured content (and its JSON text); bad ones are a tool error naming the parameter`, async () => {
      const ok = (await admin.callTool({ name: c.tool, arguments: c.good })) as CallToolResult;
      expect(ok.isError ?? false, textOf(ok)).toBe(false);
      c.check(ok.structuredContent);
      expect(JSON.parse(textOf(ok))).toEqual(ok.structuredContent);
      if (!c.bad) return;
      const bad = (await admin.callTool({ name: c.tool, arguments: c.bad })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent).toBeUndefined();
      expect(textOf(bad)).toMatch(c.names!);
    });
  }

  it('an unknown tool is a JSON-RPC error naming it', async () => {
    await expect(admin.callTool({ name: 'drop_tables', arguments: {} })).rejects.toThrow(/No tool "drop_tables"/);
  });

  it('admin tools are listed only for admin keys; a key without the scope cannot start a sync (FORBIDDEN, naming the scope)', async () => {
    expect((await admin.listTools()).tools.map((t) => t.name)).toContain('run_sync');
    expect((await reader.listTools()).tools.map((t) => t.name)).not.toContain('run_sync');
    const refused = (await reader.callTool({ name: 'run_sync', arguments: {} })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^FORBIDDEN: .*admin scope/);
    expect(((await reader.callTool({ name: 'sync_status', arguments: {} })) as CallToolResult).structuredContent).toMatchObject({
      syncStatus: { state: expect.stringMatching(/^(IDLE|RUNNING)$/) },
    });
  });

  it('resources: the SDL and the OpenAPI document read; resort templates listed; a resort’s conditions and weather read; an unknown one refused', async () => {
    const { resources } = await admin.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['gateway://openapi.json', 'gateway://schema.graphql']);
    const sdl = await admin.readResource({ uri: 'gateway://schema.graphql' });
    expect(sdl.contents[0]).toMatchObject({ mimeType: 'application/graphql' });
    expect(contentText(sdl)).toMatch(/type Query \{[\s\S]*zipDistance/);
    const openApi = JSON.parse(contentText(await admin.readResource({ uri: 'gateway://openapi.json' })));
    expect(openApi.openapi).toMatch(/^3\.1/);
    expect(Object.keys(openApi.paths)).toContain('/api/zip/{zip}');
    const { resourceTemplates } = await admin.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(['resort://{id}/conditions', 'resort://{id}/weather']);
    const conditions = JSON.parse(contentText(await admin.readResource({ uri: 'resort://Vail/conditions' })));
    expect(conditions).toMatchObject({ id: 'vail', conditions: { units: { system: 'METRIC' } } });
    const weather = JSON.parse(contentText(await admin.readResource({ uri: 'resort://zermatt/weather' })));
    expect(weather.weather.forecast).toHaveLength(7);
    await expect(admin.readResource({ uri: 'resort://no-such-resort/conditions' })).rejects.toThrow(/NOT_FOUND/);
    await expect(admin.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/No resource file:\/\/\/etc\/passwd/);
    await expect(admin.subscribeResource({ uri: 'gateway://schema.graphql' })).rejects.toThrow(/cannot be subscribed/);
  });

  it('the prompt plans a ski day from the tools; a malformed ZIP is refused naming it', async () => {
    const { prompts } = await admin.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['plan_ski_day']);
    const got = await admin.getPrompt({ name: 'plan_ski_day', arguments: { zip: '81657', day: 'Saturday' } });
    const text = (got.messages[0]!.content as { text: string }).text;
    expect(text).toMatch(/Saturday.*81657/);
    expect(text).toMatch(/resorts_near_zip.*resort_forecast/);
    await expect(admin.getPrompt({ name: 'plan_ski_day', arguments: { zip: 'ski' } })).rejects.toThrow(/zip must be/);
  });

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
