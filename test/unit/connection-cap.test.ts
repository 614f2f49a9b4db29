import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { limitConnections, markEstablished, markUpgraded } from '../../src/http/connections.js';

/**
 * A real node:http server on an ephemeral port with the connection cap, its handler holding each
 * answer until the test ends it; the server-side sockets in the order they came.
 */
async function capped(max: number, streams?: { evictOne(): boolean }) {
  const held: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    if (req.url === '/key') markEstablished(req.socket);
    if (req.url === '/hold') return void held.push(res);
    res.end('ok');
  });
  const warnings: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
  const limits = limitConnections(server, { maxConnections: max, headersTimeoutMs: 4000, requestTimeoutMs: 5000, keepAliveTimeoutMs: 3000 }, logger, streams);
  const accepted: Socket[] = [];
  server.on('connection', (s: Socket) => accepted.push(s));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const clients: Socket[] = [];
  /** A client socket, resolved once the server has taken it (and applied the cap to it). */
  const open = async () => {
    const before = accepted.length;
    const c = connect(port, '127.0.0.1');
    c.on('error', () => {});
    clients.push(c);
    await once(c, 'connect');
    while (accepted.length === before) await new Promise((r) => setImmediate(r));
    return { client: c, server: accepted[before]! };
  };
  /** Sends a request on a client socket and waits until the server has it. */
  const ask = async (c: Socket, path: string) => {
    const before = requests;
    c.write(`GET ${path} HTTP/1.1\r\nhost: x\r\n\r\n`);
    while (requests === before) await new Promise((r) => setImmediate(r));
  };
  let requests = 0;
  server.prependListener('request', () => void requests++);
  const closed = (s: Socket) => s.destroyed || s.closed;
  const close = async () => {
    for (const res of held) res.end();
    for (const c of clients) c.destroy();
    server.close();
    server.closeAllConnections();
  };
  cleanups.push(close);
  return { server, limits, open, ask, held, closed, warnings };
}
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('the connection cap', () => {
  it("sets the server's time-outs and header count", async () => {
    const { server } = await capped(10);
    expect([server.headersTimeout, server.requestTimeout, server.keepAliveTimeout, server.maxHeadersCount]).toEqual([4000, 5000, 3000, 100]);
  });

  it('at the cap, the oldest idle connection is closed for the newcomer, and the count stays at the cap', async () => {
    const { open, limits, closed, warnings } = await capped(2);
    const a = await open();
    const b = await open();
    expect(limits.open()).toBe(2);
    const c = await open();
    expect([closed(a.server), closed(b.server), closed(c.server)]).toEqual([true, false, false]);
    expect(limits.open()).toBe(2);
    // The first eviction is logged (then one in a thousand).
    expect(warnings.map(({ open, max, evicted, msg }) => ({ open, max, evicted, msg }))).toEqual([
      { open: 2, max: 2, evicted: 1, msg: 'connection cap reached: closing the oldest idle connections' },
    ]);
    await open();
    expect(warnings).toHaveLength(1);
  });

  it('a connection that carried a key’s request gives way only after every one that did not', async () => {
    const { open, ask, closed } = await capped(2);
    const keyed = await open();
    await ask(keyed.client, '/key');
    const fresh = await open();
    const next = await open();
    expect([closed(keyed.server), closed(fresh.server), closed(next.server)]).toEqual([false, true, false]);
    await ask(next.client, '/key');
    // Both established now: the oldest of them goes.
    const last = await open();
    expect([closed(keyed.server), closed(next.server), closed(last.server)]).toEqual([true, false, false]);
  });

  it('a connection writing an answer, or a WebSocket running something, is not idle; one running nothing is', async () => {
    const { open, ask, closed } = await capped(2);
    const busy = await open();
    await ask(busy.client, '/hold');
    const socket = await open();
    markUpgraded(socket.server, () => true);
    const refused = await open();
    // Nothing idle and no stream to take back: the newcomer is refused.
    expect([closed(busy.server), closed(socket.server), closed(refused.server)]).toEqual([false, false, true]);
    markUpgraded(socket.server, () => false);
    const next = await open();
    expect([closed(busy.server), closed(socket.server), closed(next.server)]).toEqual([false, true, false]);
  });

  it('with nothing idle, an event stream gives way when there is one; the newcomer stays', async () => {
    let asked = 0;
    let streams = 1;
    const { open, ask, closed, limits } = await capped(1, {
      evictOne: () => {
        asked++;
        return streams-- > 0;
      },
    });
    const busy = await open();
    await ask(busy.client, '/hold');
    const kept = await open();
    expect([asked, closed(kept.server), limits.open()]).toEqual([1, false, 2]);
    await ask(kept.client, '/hold');
    const refused = await open();
    expect([asked, closed(refused.server)]).toEqual([2, true]);
    expect(limits.open()).toBe(2);
  });

  it('a closed connection leaves the count', async () => {
    const { open, limits } = await capped(5);
    const a = await open();
    await open();
    expect(limits.open()).toBe(2);
    a.client.destroy();
    await once(a.server, 'close');
    expect(limits.open()).toBe(1);
  });
});
