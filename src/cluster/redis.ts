import { Redis, type RedisOptions } from 'ioredis';
import type { RedisTarget } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { watchFailovers } from './sentinel-watch.js';

/** Every key this service writes in Redis starts with this, so one Redis can serve other things too. */
export const PREFIX = 'szg:';

export interface RedisLink {
  /** Commands. Fails at once while Redis is unreachable (no queue), so callers fall back. */
  cmd: Redis;
  /** Subscriptions (a connection in subscriber mode can do nothing else). */
  sub: Redis;
  /** Whether the command connection is up now. */
  up(): boolean;
  /**
   * Told of a command that failed: one that timed out means Redis stopped answering (frozen, or cut
   * off without a reset), so the connection is dropped and made again; until it is ready, commands
   * fail at once and callers fall back, instead of each waiting out its time-out.
   */
  failed(err: unknown): void;
  close(): Promise<void>;
}

/** A connection to the target with these options: by URL, by socket, or through the Sentinels. */
function open(target: RedisTarget, options: RedisOptions): Redis {
  if (target.kind === 'sentinel') {
    const tls = target.tls ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {};
    return new Redis({
      ...options,
      ...tls,
      sentinels: target.sentinels,
      name: target.name,
      ...(target.password ? { password: target.password } : {}),
      ...(target.sentinelPassword ? { sentinelPassword: target.sentinelPassword } : {}),
      // Failovers are heard by watchFailovers, not ioredis' failoverDetector (see there). Should a
      // write reach a node that is a replica now, its READONLY reconnects too (asking the Sentinels).
      reconnectOnError: (err: Error) => err.message.startsWith('READONLY'),
      sentinelRetryStrategy: (attempt: number) => Math.min(200 * attempt, 2000),
    });
  }
  // unix:///path/to/redis.sock: a Redis on this machine, by its socket.
  if (target.url.startsWith('unix://')) return new Redis({ ...options, path: target.url.slice('unix://'.length) });
  return new Redis(target.url, options);
}

/** Where Redis is, for the log: the URL without its password, or the Sentinels and the primary's name. */
export function describeTarget(target: RedisTarget): string {
  if (target.kind === 'url') return target.url.replace(/\/\/([^@/]*)@/, '//***@');
  return `sentinel ${target.name} via ${target.sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`;
}

/** A command Redis has not answered in this long is given up (Redis answers in well under a millisecond). */
const COMMAND_TIMEOUT_MS = 1000;

/**
 * Two connections to Redis that reconnect by themselves (every 0.2–2 s) and resubscribe after a
 * reconnect; through Sentinel, each finds the primary by asking the Sentinels, again after a
 * failover. Commands are not queued while Redis is down: a request must not wait for it.
 */
export function connectRedis(target: RedisTarget, logger: Logger): RedisLink {
  const options: RedisOptions = {
    enableOfflineQueue: false,
    commandTimeout: COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (attempt: number) => Math.min(200 * attempt, 2000),
    lazyConnect: false,
  };
  // A command that got no answer is not sent again: a frozen Redis that wakes runs it anyway, and
  // the request was answered (and counted) on local limits meanwhile. Every command in flight
  // fails the moment the connection drops (no retry), so requests fall back together, not each
  // after its own time-out.
  const cmd = open(target, { ...options, autoResendUnfulfilledCommands: false, maxRetriesPerRequest: 0 });
  // The subscriber queues its SUBSCRIBE commands until it is connected, and replays them after.
  const sub = open(target, { ...options, commandTimeout: undefined, enableOfflineQueue: true, maxRetriesPerRequest: null });
  const where = describeTarget(target);
  const unwatch = target.kind === 'sentinel' ? watchFailovers(target, [cmd, sub]) : () => {};
  let wasUp = false;
  // Closing on purpose (a command finished, a replica shut down) is not Redis going away.
  let closing = false;
  let dropping = false;
  cmd.on('ready', () => {
    dropping = false;
    if (!wasUp) logger.info({ redis: where }, 'redis connected');
    wasUp = true;
  });
  cmd.on('close', () => {
    if (wasUp && !closing) logger.warn({ redis: where }, 'redis unreachable: local limits and local data until it is back');
    wasUp = false;
  });
  // The subscriber alone dropping loses what is published meanwhile (ClusterSync catches up).
  let subWasUp = false;
  sub.on('ready', () => {
    if (subWasUp && cmd.status === 'ready') logger.info({ redis: where }, 'redis subscriber connection back');
    subWasUp = true;
  });
  sub.on('close', () => {
    if (subWasUp && !closing && cmd.status === 'ready') logger.warn({ redis: where }, 'redis subscriber connection lost; reconnecting');
  });
  // ioredis gives a connection up for good only on a closing of ours, or when its connector fails
  // outright: then it is started again, as a reconnection would.
  for (const conn of [cmd, sub])
    conn.on('end', () => {
      if (closing) return;
      logger.warn({ redis: where }, 'redis connection given up by the client; starting it again');
      setTimeout(() => void conn.connect().catch(() => {}), 1000).unref();
    });
  // Connection errors are reported by the close/ready lines above; ioredis would print each retry.
  cmd.on('error', () => {});
  sub.on('error', () => {});
  return {
    cmd,
    sub,
    // A connection being dropped stays "ready" to ioredis until its socket has closed.
    up: () => cmd.status === 'ready' && !dropping,
    failed: (err) => {
      if ((err as Error)?.message !== 'Command timed out' || cmd.status !== 'ready' || dropping) return;
      logger.warn({ redis: where, timeoutMs: COMMAND_TIMEOUT_MS }, 'redis stopped answering: connecting again; local limits meanwhile');
      dropping = true;
      cmd.disconnect(true);
    },
    close: async () => {
      closing = true;
      unwatch();
      cmd.disconnect();
      sub.disconnect();
    },
  };
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
