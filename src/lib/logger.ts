import { fstatSync } from 'node:fs';
import { Socket } from 'node:net';
import { pino, type Logger } from 'pino';
import * as sonicBoom from 'sonic-boom';
import { activeTraceId } from '../telemetry/trace.js';

export type { Logger };

// CommonJS: the class is module.exports itself, which ESM sees as the default export.
const SonicBoom = ((sonicBoom as { default?: unknown }).default ?? sonicBoom.SonicBoom) as typeof sonicBoom.SonicBoom;

/** Log lines waiting for a slow reader, at most; past it they are dropped, not buffered without end. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/** Where log lines go: written without ever blocking the process, and flushed with a deadline. */
interface Destination {
  write(line: string): boolean;
  /** Bytes handed over and not written yet. */
  pendingBytes(): number;
  /** Emits 'drain' when everything handed over is written. */
  once(event: 'drain' | 'error', listener: () => void): unknown;
  off(event: 'drain' | 'error', listener: () => void): unknown;
}

let destination: Destination | null = null;

/**
 * stdout as a pipe or socket (a supervisor, a log shipper, `| jq`): a non-blocking stream over
 * fd 1, written by the event loop itself. Not through fs.write (SonicBoom): that writes in libuv's
 * thread pool, where a write to a full pipe whose reader stopped reading blocks its thread
 * forever, and Node joins those threads on exit, so the process could never exit (seen: a
 * SIGTERM'd server alive for over an hour, deaf to a second signal). Lines past the bound are
 * dropped; a reader that has gone (EPIPE) turns logging off.
 */
function pipeDestination(): Destination {
  const socket = new Socket({ fd: 1, readable: false, writable: true });
  socket.unref();
  let broken = false;
  socket.on('error', () => {
    broken = true;
    socket.destroy();
    socket.emit('drain');
  });
  return {
    write: (line) => {
      if (broken || socket.writableLength > MAX_BUFFERED_BYTES) return true;
      socket.write(line);
      return true;
    },
    pendingBytes: () => (broken ? 0 : socket.writableLength),
    once: (event, listener) => socket.once(event, listener),
    off: (event, listener) => socket.off(event, listener),
  };
}

/** stdout as a file or terminal: SonicBoom's asynchronous writes, bounded the same way. */
function fileDestination(): Destination {
  const d = new SonicBoom({ fd: 1, sync: false, minLength: 0, maxLength: MAX_BUFFERED_BYTES });
  let pending = false;
  d.on('drain', () => (pending = false));
  d.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') {
      d.write = () => true;
      pending = false;
    }
  });
  return {
    write: (line) => {
      pending = true;
      return d.write(line);
    },
    pendingBytes: () => (pending ? 1 : 0),
    once: (event, listener) => d.once(event, listener),
    off: (event, listener) => d.off(event, listener),
  };
}

function stdoutIsPipe(): boolean {
  try {
    const stat = fstatSync(1);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return false;
  }
}

/**
 * JSON lines to stdout, written asynchronously: a stdout that reads slowly (a full pipe) never
 * blocks the event loop or any thread, the buffer is bounded (lines past it are dropped), and a
 * stdout whose reader has gone (EPIPE) turns logging off instead of ending or stalling the process.
 * Not `pino.destination()`: it registers a synchronous flush on process exit, which retries a full
 * pipe forever. Here nothing writes synchronously; `flushLogs` waits for the buffer with a deadline.
 */
export function createLogger(level: string): Logger {
  if (level === 'silent') return pino({ level });
  destination ??= stdoutIsPipe() ? pipeDestination() : fileDestination();
  // Lines written inside a traced request or run carry its trace id (tracing off: nothing added).
  return pino({ level, base: { service: 'ski-zip-gateway' }, mixin: traceIdOfLine }, destination);
}

/** A new object every time: pino merges each line's fields into what the mixin returns. */
function traceIdOfLine(): object {
  const traceId = activeTraceId();
  return traceId ? { traceId } : {};
}

/**
 * Resolves once the lines written so far have reached stdout, or after `deadlineMs` when its
 * reader does not take them (nobody reading, a full pipe): exiting never waits on a log reader.
 */
export function flushLogs(deadlineMs = 1000): Promise<void> {
  const d = destination;
  if (!d || d.pendingBytes() === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      d.off('drain', done);
      d.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, deadlineMs);
    d.once('drain', done);
    d.once('error', done);
  });
}
