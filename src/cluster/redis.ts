import { Redis } from 'ioredis';
import type { Logger } from '../lib/logger.js';

/** Every key this service writes in Redis starts with this, so one Redis can serve other things too. */
export const PREFIX = 'szg:';

export interface RedisLink {
  /** Commands. Fails at once while Redis is unreachable (no queue), so callers fall back. */
  cmd: Redis;
  /** Subscriptions (a connection in subscriber mode can do nothing else). */
  sub: Redis;
  /** Whether the command connection is up now. */
  up(): boolean;
  close(): Promise<void>;
}

/**
 * Two connections to Redis that reconnect by themselves (every 0.2–2 s) and resubscribe after a
 * reconnect. Commands are not queued while Redis is down: a request must not wait for it.
 */
export function connectRedis(url: string, logger: Logger): RedisLink {
  const options = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (attempt: number) => Math.min(200 * attempt, 2000),
    lazyConnect: false,
  };
  // unix:///path/to/redis.sock: a Redis on this machine, by its socket.
  const socket = url.startsWith('unix://') ? { path: url.slice('unix://'.length) } : null;
  const cmd = socket ? new Redis({ ...options, ...socket }) : new Redis(url, options);
  // The subscriber queues its SUBSCRIBE commands until it is connected, and replays them after.
  const subOptions = { ...options, enableOfflineQueue: true, maxRetriesPerRequest: null };
  const sub = socket ? new Redis({ ...subOptions, ...socket }) : new Redis(url, subOptions);
  let wasUp = false;
  // Closing on purpose (a command finished, a replica shut down) is not Redis going away.
  let closing = false;
  cmd.on('ready', () => {
    if (!wasUp) logger.info({ redis: redact(url) }, 'redis connected');
    wasUp = true;
  });
  cmd.on('close', () => {
    if (wasUp && !closing) logger.warn({ redis: redact(url) }, 'redis unreachable: local limits and local data until it is back');
    wasUp = false;
  });
  // The subscriber alone dropping loses what is published meanwhile (ClusterSync catches up).
  let subWasUp = false;
  sub.on('ready', () => {
    if (subWasUp && cmd.status === 'ready') logger.info({ redis: redact(url) }, 'redis subscriber connection back');
    subWasUp = true;
  });
  sub.on('close', () => {
    if (subWasUp && !closing && cmd.status === 'ready') logger.warn({ redis: redact(url) }, 'redis subscriber connection lost; reconnecting');
  });
  // Connection errors are reported by the close/ready lines above; ioredis would print each retry.
  cmd.on('error', () => {});
  sub.on('error', () => {});
  return {
    cmd,
    sub,
    up: () => cmd.status === 'ready',
    close: async () => {
      closing = true;
      cmd.disconnect();
      sub.disconnect();
    },
  };
}

/** The URL without its password, for the log. */
function redact(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}

/** Waits until the link is up, or gives up after `ms` (start-up goes on without Redis). */
export async function waitUntilUp(link: RedisLink, ms: number): Promise<boolean> {
  if (link.up()) return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      link.cmd.off('ready', ready);
      resolve(false);
    }, ms);
    const ready = () => {
      clearTimeout(timer);
      resolve(true);
    };
    link.cmd.once('ready', ready);
  });
}
