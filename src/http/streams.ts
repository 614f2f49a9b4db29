import type { Exchange } from './exchange.js';
import type { Problem } from '../lib/errors.js';

/** What holds a connection open: an SSE or multipart answer, or a WebSocket. */
export interface StreamHolder {
  keyId: number | null;
  /** Ends it (the connection policy takes it back, or its lifetime is over). */
  end(): void;
  /** Hears when it has ended, whoever ended it. */
  onEnd(listener: () => void): void;
}

/** An event stream's answer as a holder. */
export const answerHolder = (ex: Exchange): StreamHolder => ({
  keyId: ex.keyId,
  end: () => ex.res.destroy(),
  onEnd: (listener) => ex.res.once('close', listener),
});

export interface StreamLimits {
  /** Event streams (SSE, multipart) one key may hold open at once. */
  perKey: number;
  /** Event streams open at once in all; below the connection cap, so other requests always find a connection. */
  total: number;
  /** The longest a stream stays open; then it is closed and the client reconnects. */
  maxLifetimeMs: number;
}

interface OpenStream {
  holder: StreamHolder;
  key: string;
  timer: NodeJS.Timeout;
}

/**
 * Event streams (SSE, multipart) and WebSockets hold a connection for as long as they last, so
 * they are counted together: per key (a key over its share gets 429) and in all (503 past the
 * total, which stays below the connection cap), each closed after a maximum lifetime. When the
 * connection cap is reached and no connection is idle, the connection policy takes back a stream:
 * the oldest of the key holding the most.
 */
export class StreamLimiter {
  /** Insertion order is age order. */
  private readonly open = new Set<OpenStream>();
  private readonly byKey = new Map<string, Set<OpenStream>>();

  constructor(private readonly limits: StreamLimits) {}

  get size(): number {
    return this.open.size;
  }

  /** Counts a stream about to start, or answers why it may not. */
  admit(holder: StreamHolder): Problem | null {
    const key = holder.keyId === null ? 'no key' : String(holder.keyId);
    const mine = this.byKey.get(key);
    if ((mine?.size ?? 0) >= this.limits.perKey) {
      return {
        status: 429,
        code: 'TOO_MANY_STREAMS',
        detail: `This key already holds ${this.limits.perKey} open streams (SSE, multipart, WebSocket), the most one key may hold; close one first.`,
        errors: [
          {
            name: 'streams',
            value: mine!.size,
            bound: `at most ${this.limits.perKey} open at once per key`,
            message: `streams must be at most ${this.limits.perKey} per key`,
          },
        ],
        headers: ['retry-after', '1'],
      };
    }
    if (this.open.size >= this.limits.total) {
      return {
        status: 503,
        code: 'TOO_MANY_STREAMS',
        detail: `The server holds ${this.limits.total} streams, its most; try again later.`,
        headers: ['retry-after', '5'],
      };
    }
    const stream: OpenStream = { holder, key, timer: setTimeout(() => holder.end(), this.limits.maxLifetimeMs).unref() };
    this.open.add(stream);
    if (mine) mine.add(stream);
    else this.byKey.set(key, new Set([stream]));
    holder.onEnd(() => this.release(stream));
    return null;
  }

  /** Closes the oldest stream of the key holding the most; false when there is none. */
  evictOne(): boolean {
    let victim: OpenStream | undefined;
    let most = 0;
    for (const streams of this.byKey.values()) {
      if (streams.size > most) {
        most = streams.size;
        victim = streams.values().next().value;
      }
    }
    if (!victim) return false;
    this.release(victim);
    victim.holder.end();
    return true;
  }

  private release(stream: OpenStream): void {
    if (!this.open.delete(stream)) return;
    clearTimeout(stream.timer);
    const mine = this.byKey.get(stream.key)!;
    mine.delete(stream);
    if (mine.size === 0) this.byKey.delete(stream.key);
  }
}
