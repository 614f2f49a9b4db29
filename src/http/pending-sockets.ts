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

/**
 * WebSockets whose key is not known yet (a browser cannot send headers with its upgrade, so it
 * sends the key in connection_init): a small pool, per client address and in all, so sockets
 * nobody vouches for can never hold the connections clients need. Past a bound the new upgrade
 * is refused at the handshake; nothing already open is touched. Each leaves the pool when it
 * sends a key that passes, or is closed at GRAPHQL_WS_INIT_TIMEOUT_MS.
 */
export class PendingSockets {
  private count = 0;
  private readonly byAddress = new Map<string, number>();

  constructor(private readonly limits: PendingLimits) {}

  get size(): number {
    return this.count;
  }

  admit(address: string): PendingLease | Problem {
    const mine = this.byAddress.get(address) ?? 0;
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
    if (this.count >= this.limits.total) {
      return {
        status: 503,
        code: 'TOO_MANY_CONNECTIONS',
        detail: `The server holds ${this.limits.total} WebSockets that have not sent a key, its most (WS_PENDING_MAX); send the key in the upgrade's x-api-key header, or try again later.`,
        headers: ['retry-after', '1'],
      };
    }
    this.count++;
    this.byAddress.set(address, mine + 1);
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        this.count--;
        const left = this.byAddress.get(address)! - 1;
        if (left === 0) this.byAddress.delete(address);
        else this.byAddress.set(address, left);
      },
    };
  }
}
