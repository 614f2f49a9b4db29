import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolText } from './mcp.js';

const OPERATIONS_DIR = path.resolve(import.meta.dirname, '../../src/transports/mcp/operations');
const textOf = toolText;

/** A read resource's text. */
export const contentText = (r: { contents: ({ text: string } | { blob: string })[] }) => {
  const first = r.contents[0]!;
  if (!('text' in first)) throw new Error('a resource read as a blob');
  return first.text;
};

/** The operations on disk, by the tool name each must have (ZipLookup: zip_lookup) and its description (its opening comment). */
export function operationsOnDisk(): Map<string, string> {
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

type Clients = { admin: Client; reader: Client };

/**
 * The tools, resources and prompt of /mcp as the SDK's client sees them, the same whether the
 * server is the bundle (test/mcp) or built from src/ (test/unit/mcp, for Stryker): an admin key's
 * client and a reader's (a key without the admin scope).
 */
export function toolsResourcesAndPrompt(clients: () => Clients | Promise<Clients>): void {
  it('tools/list: one tool per operation file, its description the file’s opening comment, schemas derived from the operation with the parameters’ bounds', async () => {
    const { admin } = await clients();
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
    // Each tool reads or changes this service's data only: none reaches out to an open world.
    expect(byName.get('run_sync')!.annotations).toEqual({ readOnlyHint: false, openWorldHint: false });
    expect(byName.get('zip_lookup')!.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
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
      const { admin } = await clients();
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
    const { admin } = await clients();
    await expect(admin.callTool({ name: 'drop_tables', arguments: {} })).rejects.toThrow(/No tool "drop_tables"/);
  });

  it('admin tools are listed only for admin keys; a key without the scope cannot start a sync (FORBIDDEN, naming the scope)', async () => {
    const { admin, reader } = await clients();
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
    const { admin } = await clients();
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
    const read = await admin.readResource({ uri: 'resort://Vail/conditions' });
    // Answered under the URI as asked, as JSON.
    expect(read.contents).toEqual([{ uri: 'resort://Vail/conditions', mimeType: 'application/json', text: expect.any(String) }]);
    const conditions = JSON.parse(contentText(read));
    expect(conditions).toMatchObject({ id: 'vail', conditions: { units: { system: 'METRIC' } } });
    const weather = JSON.parse(contentText(await admin.readResource({ uri: 'resort://zermatt/weather' })));
    expect(weather.weather.forecast).toHaveLength(7);
    await expect(admin.readResource({ uri: 'resort://no-such-resort/conditions' })).rejects.toThrow(/NOT_FOUND/);
    await expect(admin.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/No resource file:\/\/\/etc\/passwd/);
    await expect(admin.subscribeResource({ uri: 'gateway://schema.graphql' })).rejects.toThrow(/cannot be subscribed/);
  });

  it('the prompt plans a ski day from the tools; a malformed ZIP is refused naming it', async () => {
    const { admin } = await clients();
    const { prompts } = await admin.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['plan_ski_day']);
    const got = await admin.getPrompt({ name: 'plan_ski_day', arguments: { zip: '81657', day: 'Saturday' } });
    const text = (got.messages[0]!.content as { text: string }).text;
    expect(text).toMatch(/Saturday.*81657/);
    expect(text).toMatch(/resorts_near_zip.*resort_forecast/);
    await expect(admin.getPrompt({ name: 'plan_ski_day', arguments: { zip: 'ski' } })).rejects.toThrow(/zip must be/);
  });
}
