/** The attacks of npm run load:sockets (bench/load-sockets.ts), each run in a process of its own. */
import WebSocket from 'ws';

const tally = (counts: Record<string, number>, key: string | number) => void (counts[key] = (counts[key] ?? 0) + 1);

/** `count` attackers, each an upgrade with no key held until the server ends it, then another. */
async function keylessFlood(url: string, until: number, count: number) {
  const outcomes: Record<string, number> = {};
  const attacker = async () => {
    while (Date.now() < until) {
      await new Promise<void>((resolve) => {
        const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
        socket.on('open', () => tally(outcomes, 'upgraded'));
        socket.on('unexpected-response', (_req, res) => {
          tally(outcomes, `refused ${res.statusCode}`);
          res.resume();
          socket.terminate();
          resolve();
        });
        socket.on('close', (code) => {
          if (code !== 1006 || socket.protocol) tally(outcomes, `closed ${code}`);
          resolve();
        });
        socket.on('error', (err: NodeJS.ErrnoException) => {
          tally(outcomes, `error ${err.code ?? 'other'}`);
          resolve();
        });
        // An attacker does not wait past the run.
        setTimeout(() => socket.terminate(), Math.max(0, until - Date.now())).unref();
      });
    }
  };
  await Promise.all(Array.from({ length: count }, attacker));
  return outcomes;
}

/** Eight sockets that ping with 90 KB payloads as fast as they may and never read. */
async function pingFlood(url: string, until: number, key: string | null) {
  const outcomes: Record<string, number> = {};
  const payload = JSON.stringify({ type: 'ping', payload: { junk: 'x'.repeat(90_000) } });
  const flooder = async () => {
    while (Date.now() < until) {
      await new Promise<void>((resolve) => {
        const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
        let sending = true;
        socket.on('open', () => {
          // Without a key, an attacker sends no connection_init (it would be closed 4403 at once): pings only.
          if (key) socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-api-key': key } }));
          (socket as unknown as { _socket: { pause(): void } })._socket.pause();
          const pump = () => {
            // As fast as the socket takes them (a burst a turn), never reading what comes back.
            for (let i = 0; i < 16 && sending && socket.readyState === WebSocket.OPEN && socket.bufferedAmount < 1024 * 1024; i++) socket.send(payload);
            if (sending && socket.readyState === WebSocket.OPEN) setTimeout(pump, 1);
          };
          pump();
        });
        const done = (what: string) => {
          sending = false;
          tally(outcomes, what);
          resolve();
        };
        socket.on('close', (code) => done(`closed ${code}`));
        socket.on('error', (err: NodeJS.ErrnoException) => done(`error ${err.code ?? 'other'}`));
        setTimeout(() => socket.terminate(), Math.max(0, until - Date.now())).unref();
      });
    }
  };
  await Promise.all(Array.from({ length: 8 }, flooder));
  return outcomes;
}

const attack = JSON.parse(process.argv[2]!) as { kind: 'flood' | 'pings'; url: string; until: number; count?: number; key?: string | null };
const outcomes =
  attack.kind === 'flood' ? await keylessFlood(attack.url, attack.until, attack.count!) : await pingFlood(attack.url, attack.until, attack.key ?? null);
process.send!(outcomes, () => process.exit(0));
