import type { Problem } from '../lib/errors.js';

export interface PendingLimits {
  /** Sockets one client address may have open before they say whose they are. */
  perAddress: number;
  /** Such sockets in all: well below the connection cap. */
  total: number;
}

/** A place in the pool, given back once (the socket said whose it is, or closed). */
export interface PendingLease {
  release(): void;
}

interface Pending extends PendingLease {
  address: string;
  /** Closes the socket: the pool needs its place. */
  evict: () => void;
}

/**
 * WebSockets whose key is not known yet (a browser cannot send headers with its upgrade, so it
 * sends the key in connection_init): a small pool, per client address and in all, so sockets
 * nobody vouches for can never hold the connections clients need. Past an address's share, its
 * new upgrade is refused at the handshake. When the whole pool is full, the oldest socket of the
 * address holding the most gives way to the newcomer: a flood from a few addresses costs those
 * addresses their own sockets, and a browser — one socket from its address, sending its key a
 * round trip after it opens — still gets in. Each leaves the pool when it sends a key that
 * passes, or is closed at GRAPHQL_WS_INIT_TIMEOUT_MS.
 */
export class PendingSockets {
  private count = 0;
  /** Each address's sockets, oldest first. */
  private readonly byAddress = new Map<string, Set<Pending>>();

  constructor(private readonly limits: PendingLimits) {}

  get size(): number {
    return this.count;
  }

  admit(address: string, evict: () => void): PendingLease | Problem {
    const mine = this.byAddress.get(address)?.size ?? 0;
    if (mine >= this.limits.perAddress) {
      const bound = `at most ${this.limits.perAddress} per client address (WS_PENDING_PER_ADDRESS)`;
      return {
        status: 429,
        code: 'TOO_MANY_CONNECTIONS',
        detail: `This address already has ${mine} WebSockets that have not sent a key; send the key in the upgrade's x-api-key header, or finish connection_init on those first.`,
        errors: [{ name: 'websockets without a key', value: mine, bound, message: `websockets without a key must be ${bound}` }],
        headers: ['retry-after', '1'],
      };
    }
    if (this.count >= this.limits.total) this.evictOne();
    const pending: Pending = {
      address,
      evict,
      release: () => {
        const same = this.byAddress.get(address);
        if (!same?.delete(pending)) return;
        this.count--;
        if (same.size === 0) this.byAddress.delete(address);
      },
    };
    const same = this.byAddress.get(address);
    if (same) same.add(pending);
    else this.byAddress.set(address, new Set([pending]));
    this.count++;
    return pending;
  }

  /** The oldest socket of the address holding the most gives its place back, and is closed. */
  private evictOne(): void {
    let victim: Pending | undefined;
    let most = 0;
    for (const sockets of this.byAddress.values()) {
      if (sockets.size > most) {
        most = sockets.size;
        victim = sockets.values().next().value;
      }
    }
    if (!victim) return;
    victim.release();
    victim.evict();
  }
}
