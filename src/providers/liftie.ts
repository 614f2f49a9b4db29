import { z } from 'zod';
import type { LiftStatusProvider, LiveLift } from './provider.js';
import type { CallBounds, Upstream } from './upstream.js';

/**
 * Liftie (liftie.info): live lift status by Liftie's resort id, GET {base}/{id}. Documented JSON:
 * `{ id, name, lifts: { status: { "<lift name>": "open" | "closed" | "hold" | "scheduled" },
 * stats: { open, hold, scheduled, closed } } }`.
 */
const LiftieResort = z.object({
  id: z.string(),
  name: z.string().optional(),
  lifts: z.object({
    status: z.record(z.string(), z.enum(['open', 'closed', 'hold', 'scheduled'])),
    stats: z.object({ open: z.number(), hold: z.number(), scheduled: z.number(), closed: z.number() }).partial().optional(),
  }),
});

const STATUS = { open: 'OPEN', closed: 'CLOSED', hold: 'HOLD', scheduled: 'SCHEDULED' } as const;

export class LiftieProvider implements LiftStatusProvider {
  readonly name = 'liftie';

  constructor(
    private readonly upstream: Upstream,
    private readonly baseUrl: string,
  ) {}

  async lifts(liftieId: string, bounds: CallBounds = {}): Promise<LiveLift[]> {
    const body = await this.upstream.getJson(`${this.baseUrl}/${encodeURIComponent(liftieId)}`, LiftieResort, bounds);
    return Object.entries(body.lifts.status).map(([name, status]) => ({ name, status: STATUS[status] }));
  }
}
