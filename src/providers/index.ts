import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { LiftieProvider } from './liftie.js';
import { OpenMeteoProvider } from './open-meteo.js';
import type { ConditionsProvider, HistoryProvider, LiftStatusProvider } from './provider.js';
import { simulatedProvider } from './simulated.js';
import { createUpstream, type Upstream } from './upstream.js';

export interface Providers {
  conditions: ConditionsProvider;
  history: HistoryProvider;
  lifts: LiftStatusProvider | null;
  /** The upstream clients in use (their breakers are in /metrics). */
  upstreams: Upstream[];
}

/** The providers the configuration asks for; each real one with its own upstream client. */
export function createProviders(config: Config, logger: Logger, observe?: (provider: string, outcome: string) => void): Providers {
  const upstreams: Upstream[] = [];
  const upstream = (name: string) => {
    const u = createUpstream({ name, logger, ...config.upstream, observe: (outcome) => observe?.(name, outcome) });
    upstreams.push(u);
    return u;
  };
  const meteo = config.provider === 'open-meteo' ? new OpenMeteoProvider(upstream('open-meteo'), config.openMeteo) : null;
  return {
    conditions: meteo ?? simulatedProvider,
    history: meteo ?? simulatedProvider,
    lifts: config.liftie.enabled ? new LiftieProvider(upstream('liftie'), config.liftie.url) : null,
    upstreams,
  };
}
