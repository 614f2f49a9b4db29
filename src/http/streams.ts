import type { Exchange } from './exchange.js';
import type { Problem } from '../lib/errors.js';

/**
 * What holds something open for a client: an SSE or multipart answer, a subscription or an
 * incremental operation on a WebSocket, or a WebSocket with nothing running on it.
 */
export interface StreamHolder {
  keyId: number | null;
  /** The client's address: within one key, no address takes more than its share. */
  address: string;
  /** The key's own cap on its streams (its record's), or null for the server's default. */
  keyLimit: number | null;
  /**
   * Ends it. With a reason (the key revoked, its quota used up) the client is told why before
   * the stream closes; without one (the connection policy took it back, its lifetime is over) it
   * is closed and the client reconnects.
   */
  end(reason?: Problem): void;
  /**
   * For a holder that outlives its key's monthly quota (an MCP session, whose calls are each
   * refused by themselves): told instead of ended when the quota is used up; it stops what it
   * delivers and keeps its place.
   */
  quotaUsedUp?(reason: Problem): void;
}

/** A stream counted: released once, whoever ends it. */
export interface StreamLease {
  release(): void;
}

export interface StreamLimits {
  /** Streams one key may hold open at once, unless the key has its own cap. */
  perKey: number;
  /** Within one key, streams one client address may hold. */
  perAddress: number;
  /** Streams open at once in all; below the connection cap, so other requests always find a connection. */
  total: number;
  /** The longest a stream stays open; then it is closed and the client reconnects. */
  maxLifetimeMs: number;
}

interface OpenStream extends StreamLease {
  holder: StreamHolder;
  key: string;
  timer: NodeJS.Timeout;
}

/** An event stream's answer as a holder; `end` with a reason hands it to the stream's writer. */
export function answerHolder(ex: Exchange, endWith: (reason: Problem) => void): StreamHolder {
  return {
    keyId: ex.keyId,
    address: ex.req.socket.remoteAddress ?? '',
    keyLimit: ex.keyStreams,
    end: (reason) => (reason ? endWith(reason) : ex.res.destroy()),
  };
}

const NO_KEY = 'no key';

/**
 * Everything a client holds open is counted here, whatever carries it (SSE, multipart, each
 * subscription or deferred operation on a WebSocket, a WebSocket with none): per key (its own cap
 * or STREAMS_PER_KEY: past it 429), per client address within a key (STREAMS_PER_ADDRESS: 429), and
 * in all (MAX_STREAMS, below the connection cap: 503). Each is closed after a maximum lifetime.
 * When the connection cap is reached and no connection is idle, the connection policy takes back
 * a stream: the oldest of the key holding the most. A key revoked or past its quota has every
 * stream ended with the reason (`endKey`).
 */
export class StreamLimiter {
  /** Insertion order is age order. */
  private readonly open = new Set<OpenStream>();
  private readonly byKey = new Map<string, Set<OpenStream>>();
  private readonly byKeyAndAddress = new Map<string, number>();

  constructor(private readonly limits: StreamLimits) {}

  get size(): number {
    return this.open.size;
  }

  /** The keys holding streams now (the ids; null with AUTH=off). */
  keys(): (number | null)[] {
    return [...this.byKey.values()].map((streams) => streams.values().next().value!.holder.keyId);
  }

  /** Counts a stream about to start, or answers why it may not. */
  admit(holder: StreamHolder): StreamLease | Problem {
    const key = holder.keyId === null ? NO_KEY : String(holder.keyId);
    const mine = this.byKey.get(key);
    const held = mine?.size ?? 0;
    const perKey = holder.keyLimit ?? this.limits.perKey;
    if (held >= perKey) {
      return tooMany(
        'streams',
        held,
        `at most ${perKey} open at once per key`,
        `This key already holds ${perKey} open streams (SSE, multipart, WebSocket subscriptions, MCP sessions), the most it may hold; close one first.`,
      );
    }
    const byAddress = `${key}\n${holder.address}`;
    const fromAddress = this.byKeyAndAddress.get(byAddress) ?? 0;
    if (fromAddress >= this.limits.perAddress) {
      return tooMany(
        'streams',
        fromAddress,
        `at most ${this.limits.perAddress} open at once per client address and key (STREAMS_PER_ADDRESS)`,
        `This address already holds ${this.limits.perAddress} of this key's open streams, the most one address may hold of one key; close one first.`,
      );
    }
    if (this.open.size >= this.limits.total) {
      return {
        status: 503,
        code: 'TOO_MANY_STREAMS',
        detail: `The server holds ${this.limits.total} streams, its most; try again later.`,
        headers: ['retry-after', '5'],
      };
    }
    const stream: OpenStream = {
      holder,
      key,
      timer: setTimeout(() => {
        stream.release();
        holder.end();
      }, this.limits.maxLifetimeMs).unref(),
      release: () => this.release(stream, byAddress),
    };
    this.open.add(stream);
    if (mine) mine.add(stream);
    else this.byKey.set(key, new Set([stream]));
    this.byKeyAndAddress.set(byAddress, fromAddress + 1);
    return stream;
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
    victim.release();
    victim.holder.end();
    return true;
  }

  /** Ends every stream of a key, telling each client why (the key revoked, its quota used up); how many it ended. */
  endKey(keyId: number | null, reason: Problem): number {
    const streams = this.byKey.get(keyId === null ? NO_KEY : String(keyId));
    if (!streams) return 0;
    let ended = 0;
    for (const stream of [...streams]) {
      if (reason.status === 429 && stream.holder.quotaUsedUp) {
        stream.holder.quotaUsedUp(reason);
        continue;
      }
      stream.release();
      stream.holder.end(reason);
      ended++;
    }
    return ended;
  }

  private release(stream: OpenStream, byAddress: string): void {
    if (!this.open.delete(stream)) return;
    clearTimeout(stream.timer);
    const mine = this.byKey.get(stream.key)!;
    mine.delete(stream);
    if (mine.size === 0) this.byKey.delete(stream.key);
    const left = this.byKeyAndAddress.get(byAddress)! - 1;
    if (left === 0) this.byKeyAndAddress.delete(byAddress);
    else this.byKeyAndAddress.set(byAddress, left);
  }
}

/** A lease or a refusal: which one. */
export const isRefusal = (admitted: StreamLease | Problem): admitted is Problem => 'status' in admitted;

function tooMany(name: string, value: number, bound: string, detail: string): Problem {
  return {
    status: 429,
    code: 'TOO_MANY_STREAMS',
    detail,
    errors: [{ name, value, bound, message: `${name} must be ${bound}` }],
    headers: ['retry-after', '1'],
  };
}
