import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../lib/logger.js';

export interface ConnectionLimits {
  /** Open connections at most; past it the oldest idle one is closed to let a new one in. */
  maxConnections: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/**
 * Sockets that left HTTP for another protocol (a WebSocket), with what says whether each is busy:
 * one that runs nothing (no key yet, or no operation) is as idle as a keep-alive connection.
 */
const upgraded = new WeakMap<Socket, () => boolean>();
export function markUpgraded(socket: Socket, busy: () => boolean): void {
  upgraded.set(socket, busy);
}

/**
 * Connections that have carried a request of a key (or a WebSocket whose key passed): at the cap,
 * connections nobody has vouched for give way first, so a flood of fresh sockets costs its sender
 * its own sockets, never an established client its keep-alive connection.
 */
const established = new WeakSet<Socket>();
export function markEstablished(socket: Socket): void {
  if (!established.has(socket)) established.add(socket);
}

/** The answer node:http is writing on a socket, if any (it attaches it there, under a private name). */
export function answerOn(socket: Duplex): { headersSent: boolean } | undefined {
  return (socket as unknown as { _httpMessage?: { headersSent: boolean } })._httpMessage;
}

/** Whether a connection is idle: no answer being written, no WebSocket operation running. */
function isIdle(socket: Socket): boolean {
  const busy = upgraded.get(socket);
  return busy ? !busy() : !answerOn(socket);
}

/**
 * Connections cannot pile up: idle and trickling clients are cut by the header, request and
 * keep-alive time-outs (checked every second, so they hold what they say), and when the cap is
 * reached the oldest idle connection makes room for the new one, one that never carried a key's
 * request first — a flood of idle sockets (or of WebSockets that run nothing) costs its sender
 * its sockets, not the next client its request. Without an idle one, a stream makes room
 * (http/streams.ts).
 */
export function limitConnections(server: Server, limits: ConnectionLimits, logger: Logger, streams?: { evictOne(): boolean }): { open(): number } {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxHeadersCount = 100;

  // Insertion order is age order.
  const open = new Set<Socket>();
  /** The oldest idle connection but `newcomer`, among those a client established or those it did not. */
  const oldestIdle = (newcomer: Socket, wasEstablished: boolean): Socket | undefined => {
    for (const s of open) if (s !== newcomer && established.has(s) === wasEstablished && isIdle(s)) return s;
    return undefined;
  };
  let evicted = 0;
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    if (open.size <= limits.maxConnections) return;
    const victim = oldestIdle(socket, false) ?? oldestIdle(socket, true);
    if (victim) {
      open.delete(victim);
      victim.destroy();
      if (++evicted % 1000 === 1)
        logger.warn({ open: open.size, max: limits.maxConnections, evicted }, 'connection cap reached: closing the oldest idle connections');
      return;
    }
    // No connection is idle: an event stream gives way (the oldest of the key holding the most),
    // else the new connection is refused.
    if (streams?.evictOne()) return;
    open.delete(socket);
    socket.destroy();
  });
  return { open: () => open.size };
}
