import type { Socket } from 'node:net';
import WebSocket from 'ws';
import type { RunningApp } from '../../src/app/start.js';

export interface RawSocketOptions {
  headers?: Record<string, string>;
  path?: string;
  /** The client address to connect from (any of 127.0.0.0/8 reaches the server's 127.0.0.1). */
  from?: string;
  /** Answer the server's protocol pings (true, as clients do). */
  autoPong?: boolean;
  protocols?: string | string[];
}

/**
 * A raw socket speaking graphql-transport-ws by hand, for what the protocol and the bounds say:
 * every message it receives (parsed), the bytes of them, how it closed, and a way to stop and
 * resume reading (a client that does not read).
 */
export function rawSocket(app: RunningApp, options: RawSocketOptions = {}) {
  const socket = new WebSocket(`${app.url.replace(/^http/, 'ws')}${options.path ?? '/graphql'}`, options.protocols ?? 'graphql-transport-ws', {
    headers: options.headers ?? {},
    ...(options.from ? { localAddress: options.from } : {}),
    autoPong: options.autoPong ?? true,
  });
  const messages: any[] = [];
  let bytes = 0;
  socket.on('message', (data: Buffer) => {
    bytes += data.length;
    messages.push(JSON.parse(String(data)));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d));
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, body: JSON.parse(body || '{}') })));
    });
    socket.once('error', reject);
  });
  // A refused upgrade is read by `opened`; the error ws raises beside it is not a failure here.
  socket.on('error', () => undefined);
  const raw = () => (socket as unknown as { _socket: Socket })._socket;
  return {
    socket,
    messages,
    closed,
    opened,
    bytes: () => bytes,
    send: (message: unknown) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)),
    /** Stops reading: what the server sends waits in its buffers. */
    pause: () => raw().pause(),
    resume: () => raw().resume(),
    /** connection_init with a key in its payload, then waits for connection_ack. */
    async init(key: string | null): Promise<void> {
      await this.opened;
      this.send({ type: 'connection_init', payload: key === null ? {} : { 'x-api-key': key } });
      await this.next((m) => m.type === 'connection_ack');
    },
    /** Waits for a message that `match` accepts (among those received so far and those to come). */
    async next(match: (m: any) => boolean, ms = 20_000): Promise<any> {
      const t0 = Date.now();
      for (;;) {
        const found = messages.find(match);
        if (found) return found;
        if (socket.readyState === WebSocket.CLOSED) throw new Error(`the socket closed before the message came: ${JSON.stringify(messages).slice(0, 400)}`);
        if (Date.now() - t0 > ms) throw new Error(`no such message within ${ms} ms: ${JSON.stringify(messages).slice(0, 400)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
}

export type RawSocket = ReturnType<typeof rawSocket>;
