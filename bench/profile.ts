/**
 * npm run bench:profile — where a warm server's CPU goes: `npm start`'s server under V8's sampling
 * profiler, warmed (PROFILE_WARM_SECONDS of other ZIPs), then PROFILE_SECONDS of REST ZIP lookups
 * with a key, each ZIP once, 10 connections. PROFILE_SUFFIX follows the ZIP in each path (e.g.
 * `/nearby?radius=25&limit=50`); PROFILE_ZIPS=n asks for n ZIPs only, warm-up and all (their
 * answers kept: the response cache's hits); PROFILE_GRAPHQL=1 sends the bench's GraphQL ZIP lookup
 * (a POST with variables) instead. Prints, over the measured seconds only, the functions by their own
 * time and by the time under them, as shares of the busy (not idle) samples, mapped through the
 * bundle's source map to src/ and node_modules/. The profile itself is kept (its path is printed)
 * for Chrome's DevTools.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import autocannon from 'autocannon';
import { benchDatabase, buildOnce, GRAPHQL_ZIP_QUERY, startCommand, startServer } from './lib.js';

const SECONDS = Number(process.env.PROFILE_SECONDS ?? 8);
const WARM = Number(process.env.PROFILE_WARM_SECONDS ?? 3);
const SUFFIX = process.env.PROFILE_SUFFIX ?? '';
const TOP = Number(process.env.PROFILE_TOP ?? 30);
const KEY = 'szg_profile_bench_key_0123456789';
const GRAPHQL = process.env.PROFILE_GRAPHQL === '1';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

await buildOnce();
const { dir, dbPath, zips: all } = benchDatabase('profile');
const zips = all.slice(0, Number(process.env.PROFILE_ZIPS ?? all.length));

const cmd = startCommand();
const server = await startServer(
  ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...cmd.args],
  { ...cmd.env, DB_PATH: dbPath, LOG_LEVEL: 'silent', API_KEYS: KEY, API_KEYS_QUOTA: '1000000000', API_KEYS_RATE: '1000000', SYNC_INTERVAL_MINUTES: '0' },
  { path: '/readyz' },
);
let next = 0;
const load = (seconds: number) =>
  autocannon({
    url: server.url,
    connections: 10,
    duration: seconds,
    headers: { 'x-api-key': KEY },
    requests: [
      {
        setupRequest: (r) =>
          GRAPHQL
            ? {
                ...r,
                method: 'POST',
                path: '/graphql',
                headers: { ...r.headers, 'content-type': 'application/json' },
                body: JSON.stringify({ query: GRAPHQL_ZIP_QUERY, variables: { zip: zips[next++ % zips.length] } }),
              }
            : { ...r, path: `/api/zip/${zips[next++ % zips.length]}${SUFFIX}` },
      },
    ],
  });
await load(WARM);
// V8's profile and process.hrtime both count on the monotonic clock, in µs and ns.
const measuredFrom = Number(process.hrtime.bigint() / 1000n);
const measured = await load(SECONDS);
await server.stop();

const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error(`no profile in ${dir}: did the server exit cleanly?`);
const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Profile;
const bundle = path.join(process.cwd(), 'dist', 'bundle.cjs');
const map = new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, 'utf8')));

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
const names = new Map<number, string>();
function nameOf(id: number): string {
  const known = names.get(id);
  if (known) return known;
  const { functionName, url, lineNumber, columnNumber } = byId.get(id)!.callFrame;
  let where = `${path.basename(url) || '(native)'}:${lineNumber + 1}`;
  if (url.endsWith('bundle.cjs')) {
    const found = map.findEntry(lineNumber, columnNumber) as { originalSource?: string; originalLine?: number };
    if (found.originalSource) where = `${found.originalSource.replace(/^.*?\b(src|node_modules)\//, '$1/')}:${found.originalLine! + 1}`;
  }
  const name = `${functionName || '(anonymous)'} ${where}`;
  names.set(id, name);
  return name;
}

// Time per sample node, over the measured seconds only.
const timeOf = new Map<number, number>();
let at = profile.startTime;
profile.samples.forEach((id, i) => {
  at += profile.timeDeltas[i] ?? 0;
  if (at >= measuredFrom) timeOf.set(id, (timeOf.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const own = new Map<string, number>();
const under = new Map<string, number>();
let busy = 0;
let idle = 0;
for (const [id, t] of timeOf) {
  if (byId.get(id)!.callFrame.functionName === '(idle)') {
    idle += t;
    continue;
  }
  busy += t;
  own.set(nameOf(id), (own.get(nameOf(id)) ?? 0) + t);
  const seen = new Set<string>();
  for (let q: number | undefined = id; q !== undefined; q = parentOf.get(q)) {
    const name = nameOf(q);
    if (seen.has(name)) continue;
    seen.add(name);
    under.set(name, (under.get(name) ?? 0) + t);
  }
}

const table = (title: string, times: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [name, t] of [...times].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${((100 * t) / busy).toFixed(1).padStart(6)} %  ${name}`);
};
const requests = measured.requests.total;
console.log(
  `${GRAPHQL ? 'POST /graphql (ZIP lookup)' : `/api/zip/{zip}${SUFFIX}`}: ${requests} requests in ${SECONDS} s; busy ${(busy / 1000).toFixed(0)} ms (${(busy / Math.max(1, requests)).toFixed(1)} µs a request), idle ${(idle / 1000).toFixed(0)} ms`,
);
table('own time (share of busy samples)', own);
table('time under (share of busy samples)', under);
console.log(`\nthe profile: ${path.join(dir, file)}`);
