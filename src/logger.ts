import { pino, type Logger } from 'pino';

export type { Logger };

/** Log lines waiting for a slow reader, at most; past it they are dropped, not buffered without end. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

let destination: ReturnType<typeof pino.destination> | null = null;

/**
 * JSON lines to stdout, written asynchronously: a stdout that reads slowly (a full pipe) never
 * blocks the event loop, the buffer is bounded (lines past it are dropped), and a stdout whose
 * reader has gone (EPIPE) turns logging off instead of ending or stalling the process.
 */
export function createLogger(level: string): Logger {
  if (level === 'silent') return pino({ level });
  destination ??= (() => {
    const d = pino.destination({ dest: 1, sync: false, minLength: 0, maxLength: MAX_BUFFERED_BYTES });
    d.on('error', (err: NodeJS.ErrnoException) => {
      // Nobody reads stdout any more: stop writing to it (a destroyed stream would throw).
      if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') d.write = () => true;
    });
    return d;
  })();
  return pino({ level, base: { service: 'ski-zip-gateway' } }, destination);
}

/** Writes what is buffered (at exit); a closed stdout is not an error then. */
export function flushLogs(): void {
  try {
    destination?.flushSync();
  } catch {
    // Nobody is reading: nothing to flush to.
  }
}
