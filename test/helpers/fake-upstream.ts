import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for Open-Meteo and Liftie on 127.0.0.1, speaking their documented JSON, with
 * switchable failures. Values are simple functions of the request so tests can compute them.
 */
export type Mode =
  | 'ok'
  | 'bad-request'
  | 'server-error'
  | 'hang'
  | 'not-json'
  | 'wrong-shape'
  | 'slow'
  | 'fail-south'
  | 'fail-north'
  | 'huge'
  | 'trickle'
  | 'leaky'
  | 'rate-limited'
  | 'rate-limited-once'
  | 'reset';

/** Text a provider might put in an error that must never reach a client (its internals). */
export const LEAKY_REASON = 'Traceback: /srv/open-meteo/worker.py line 42: database password rejected';

export interface FakeUpstream {
  url: string;
  mode: Mode;
  /** Milliseconds each response waits in 'slow' mode. */
  delayMs: number;
  requests: string[];
  maxInFlight: number;
  /** The day Open-Meteo's past_days and forecast_days count from (the caller's clock). */
  today: string;
  /** What Liftie says of every resort's lifts, by lift name (Liftie's statuses: open, hold, scheduled, closed). */
  liftStatus: Record<string, string>;
  /**
   * Holds every request after the next `pass` until the returned function is called (a provider
   * that has not answered yet): a run stays under way, at a known point, however fast the machine.
   */
  hold(pass?: number): () => void;
  /** Requests whose connection is still open (a cancelled call closes its own). */
  inFlight(): number;
  close(): Promise<void>;
}

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Expected fake values, shared with the tests. */
export const fakeDaily = {
  tempMax: (elevation: number, i: number) => Math.round((8 - elevation / 200 + (i % 3)) * 10) / 10,
  tempMin: (elevation: number, i: number) => Math.round((-2 - elevation / 200 + (i % 3)) * 10) / 10,
  snowfall: (i: number) => (i % 4 === 0 ? 12 : 0),
  precipitation: (i: number) => (i % 4 === 0 ? 9 : 0),
  snowDepthM: 1.25,
  /** Snowfall Open-Meteo reports at the label hour (the hour before it) of day `i`. */
  snowfallAtLabel: (i: number, labelHour: number) => (i % 4 === 0 && labelHour >= 1 && labelHour <= 12 ? 1 : 0),
};

const HOURS = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0'));

function openMeteo(url: URL, today: string) {
  const lats = (url.searchParams.get('latitude') ?? '').split(',').map(Number);
  const lngs = (url.searchParams.get('longitude') ?? '').split(',').map(Number);
  const elevations = (url.searchParams.get('elevation') ?? '').split(',').map(Number);
  let start: number;
  let end: number;
  if (url.searchParams.has('start_date')) {
    start = Date.parse(`${url.searchParams.get('start_date')}T00:00:00Z`);
    end = Date.parse(`${url.searchParams.get('end_date')}T00:00:00Z`);
  } else {
    const t = Date.parse(`${today}T00:00:00Z`);
    start = t - Number(url.searchParams.get('past_days') ?? 0) * DAY;
    end = t + (Number(url.searchParams.get('forecast_days') ?? 7) - 1) * DAY;
  }
  const days: string[] = [];
  for (let d = start; d <= end; d += DAY) days.push(iso(d));
  const locations = lats.map((lat, k) => {
    const elevation = elevations[k] ?? 1000;
    // Day index from the epoch, so the same date gets the same value in every request.
    const idx = days.map((d) => Math.round(Date.parse(`${d}T00:00:00Z`) / DAY));
    return {
      latitude: lat,
      longitude: lngs[k],
      elevation,
      generationtime_ms: 0.1,
      utc_offset_seconds: 0,
      daily_units: { time: 'iso8601', temperature_2m_max: '°C', snowfall_sum: 'cm' },
      daily: {
        time: days,
        temperature_2m_max: idx.map((i) => fakeDaily.tempMax(elevation, i)),
        temperature_2m_min: idx.map((i) => fakeDaily.tempMin(elevation, i)),
        precipitation_sum: idx.map((i) => fakeDaily.precipitation(i)),
        snowfall_sum: idx.map((i) => fakeDaily.snowfall(i)),
        precipitation_probability_max: idx.map((i) => (i % 4 === 0 ? 80 : 10)),
        wind_speed_10m_max: idx.map(() => 20 + elevation / 100),
        wind_gusts_10m_max: idx.map(() => 35 + elevation / 100),
        wind_direction_10m_dominant: idx.map(() => 250),
      },
      timezone: url.searchParams.get('timezone') ?? 'GMT',
      hourly_units: { time: 'iso8601', snow_depth: 'm', snowfall: 'cm' },
      hourly: {
        time: days.flatMap((d) => HOURS.map((h) => `${d}T${h}:00`)),
        snow_depth: days.flatMap(() => HOURS.map(() => fakeDaily.snowDepthM)),
        // Preceding-hour amounts: a snowy day's snow falls in its first 12 hours (labels 01:00–12:00).
        snowfall: idx.flatMap((i) => HOURS.map((h) => fakeDaily.snowfallAtLabel(i, Number(h)))),
      },
    };
  });
  return locations.length === 1 ? locations[0] : locations;
}

const LIFT_STATUS = { 'Eagle Bahn Gondola': 'open', 'Born Free Express': 'hold', 'Riva Bahn Express': 'scheduled', 'Sourdough Express': 'closed' };

function liftie(id: string, status: Record<string, string>) {
  const count = (s: string) => Object.values(status).filter((x) => x === s).length;
  const n = Object.keys(status).length || 1;
  return {
    id,
    name: `Resort ${id}`,
    ll: [-106.35, 39.6],
    timestamp: { lifts: Date.now() },
    lifts: {
      status,
      stats: {
        open: count('open'),
        hold: count('hold'),
        scheduled: count('scheduled'),
        closed: count('closed'),
        percentage: Object.fromEntries(['open', 'hold', 'scheduled', 'closed'].map((s) => [s, Math.round((count(s) / n) * 100)])),
      },
    },
  };
}

export async function startFakeUpstream(options: { today: string }): Promise<FakeUpstream> {
  let inFlight = 0;
  const answers = new Map<string, string>();
  let gate: Promise<void> | null = null;
  /** Requests the gate still lets through. */
  let passing = 0;
  const state: Omit<FakeUpstream, 'close' | 'url' | 'hold' | 'inFlight'> = {
    mode: 'ok',
    delayMs: 0,
    requests: [],
    maxInFlight: 0,
    today: options.today,
    liftStatus: { ...LIFT_STATUS },
  };
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    state.requests.push(req.url ?? '');
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    if (gate !== null && passing-- <= 0) await gate;
    const url = new URL(req.url ?? '/', 'http://fake');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    switch (state.mode) {
      case 'hang':
        return; // never answers; the client's time-out must fire
      case 'bad-request':
        return send(400, { error: true, reason: 'Cannot initialize WeatherVariable from invalid String value' });
      case 'server-error':
        return send(502, { error: true, reason: 'upstream temporarily unavailable' });
      case 'not-json':
        return send(200, '<html>maintenance</html>');
      case 'wrong-shape':
        return send(200, { daily: { time: 'yesterday' } });
      case 'leaky':
        return send(500, { error: true, reason: LEAKY_REASON });
      case 'rate-limited':
        return send(429, { error: true, reason: 'Too many requests' });
      case 'rate-limited-once':
        state.mode = 'ok';
        return send(429, { error: true, reason: 'Too many requests' });
      case 'reset':
        // A network error: the connection drops before any answer.
        return void req.socket.destroy();
      case 'huge': {
        // 200 MB of JSON, streamed: a client that reads it all runs out of memory.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"latitude":1,"longitude":2,"daily":{"time":[');
        const chunk = Buffer.from('"2027-01-01",'.repeat(80_000));
        let sent = 0;
        const pump = () => {
          while (sent < 200 * 1024 * 1024) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end('"2027-01-01"]}}');
        };
        res.on('error', () => {});
        return pump();
      }
      case 'trickle': {
        // Valid headers at once, then a byte every 100 ms: a body that never finishes in time.
        res.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => res.write(' '), 100);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case 'slow':
        await new Promise((r) => setTimeout(r, state.delayMs));
        break;
      case 'fail-south':
        if (Number((url.searchParams.get('latitude') ?? '0').split(',')[0]) < 0) return send(500, { error: true, reason: 'southern hemisphere is down' });
        break;
      case 'fail-north':
        // Weather only: Liftie still answers.
        if (url.pathname.startsWith('/v1/') && Number((url.searchParams.get('latitude') ?? '0').split(',')[0]) >= 0)
          return send(500, { error: true, reason: 'northern hemisphere is down' });
        break;
      default:
        break;
    }
    if (url.pathname.startsWith('/liftie/')) return send(200, liftie(decodeURIComponent(url.pathname.slice('/liftie/'.length)), state.liftStatus));
    if (url.pathname === '/v1/forecast' || url.pathname === '/v1/archive') {
      // The same question gets the same answer: tests run many syncs over the same resorts, and
      // building the hourly series again for each was most of a sync test's time.
      const key = `${state.today} ${req.url}`;
      let body = answers.get(key);
      if (body === undefined) {
        if (answers.size > 5_000) answers.clear();
        answers.set(key, (body = JSON.stringify(openMeteo(url, state.today))));
      }
      return send(200, body);
    }
    send(404, { error: true, reason: 'Not found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const fake = state as FakeUpstream;
  fake.url = `http://127.0.0.1:${port}`;
  fake.hold = (pass = 0) => {
    passing = pass;
    let release!: () => void;
    gate = new Promise<void>((r) => (release = r));
    return () => {
      gate = null;
      release();
    };
  };
  fake.inFlight = () => inFlight;
  fake.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return fake;
}
