import { Redis } from 'ioredis';
import type { RedisTarget } from '../lib/config.js';

type SentinelTarget = Extract<RedisTarget, { kind: 'sentinel' }>;

/**
 * Hears each Sentinel announce a new primary (+switch-master) and moves the given connections to
 * it at once. Without this, a primary failed over while alive (by hand, or cut off from the
 * Sentinels) keeps taking our writes until it is demoted, seconds later, and they are lost.
 * ioredis' own failoverDetector does the same but ends a client for good when the announcement
 * comes while it is reconnecting; here a connection not ready now is left to find the primary by
 * itself (it asks the Sentinels when it reconnects). Returns the watch's closing.
 */
export function watchFailovers(target: SentinelTarget, connections: Redis[]): () => void {
  let handled = '';
  const watchers = target.sentinels.map((sentinel) => {
    const watcher = new Redis({
      host: sentinel.host,
      port: sentinel.port,
      ...(target.sentinelPassword ? { password: target.sentinelPassword } : {}),
      ...(target.tls ? { tls: {} } : {}),
      retryStrategy: (attempt: number) => Math.min(200 * attempt, 2000),
      maxRetriesPerRequest: null,
    });
    // A Sentinel away is what the others are for; its retries are not news.
    watcher.on('error', () => {});
    watcher.subscribe('+switch-master').catch(() => {});
    watcher.on('message', (_channel: string, message: string) => {
      // "<name> <old ip> <old port> <new ip> <new port>", from each Sentinel: acted on once.
      const [name, , , host, port] = message.split(' ');
      if (name !== target.name || message === handled) return;
      handled = message;
      // A connection that found the new primary already (the news can come late) stays.
      for (const conn of connections)
        if (conn.status === 'ready' && !(conn.stream?.remoteAddress === host && String(conn.stream?.remotePort) === port)) conn.disconnect(true);
    });
    return watcher;
  });
  return () => {
    for (const w of watchers) w.disconnect();
  };
}
