import CircuitBreaker from 'opossum';
import pLimit from 'p-limit';
import type { z } from 'zod';
import type { Logger } from '../logger.js';

/** A provider could not answer: the API says "provider lookup error" (502), the log says why. */
export class UpstreamError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly status?: number,
  ) {
    super(`${provider}: ${message}`);
  }
}

export interface UpstreamOptions {
  name: string;
  logger: Logger;
  /** Per attempt. */
  timeoutMs: number;
  /** Extra attempts after the first, for network errors, time-outs, 429 and 5xx. */
  retries: number;
  /** First backoff; doubled per attempt, with jitter. */
  backoffMs: number;
  /** Requests in flight to this provider at once. */
  concurrency: number;
  /** Open the circuit after this share (%) of failures among at least `volumeThreshold` calls. */
  errorThresholdPercentage?: number;
  volumeThreshold?: number;
  /** How long the circuit stays open before one trial call. */
  resetTimeoutMs?: number;
}

const RETRYABLE = (status: number) => status === 429 || status >= 500;

/**
 * One client per provider: bounded concurrency (p-limit), a time-out per attempt, bounded retries
 * with exponential backoff, and a circuit breaker (opossum) so a dead provider fails fast instead
 * of tying up every sync slot. Responses are validated with a zod schema; anything else is an
 * UpstreamError naming the cause.
 */
export function createUpstream(options: UpstreamOptions) {
  const limit = pLimit(options.concurrency);
  const log = options.logger.child({ provider: options.name });

  async function attempt(url: string): Promise<unknown> {
    let lastError: UpstreamError | null = null;
    for (let i = 0; i <= options.retries; i++) {
      if (i > 0) {
        const backoff = options.backoffMs * 2 ** (i - 1) * (0.5 + Math.random() / 2);
        await new Promise((r) => setTimeout(r, backoff));
      }
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs), headers: { accept: 'application/json' } });
        const text = await res.text();
        if (!res.ok) {
          const reason = reasonOf(text) ?? `HTTP ${res.status}`;
          lastError = new UpstreamError(options.name, reason, res.status);
          if (RETRYABLE(res.status)) continue;
          throw lastError;
        }
        try {
          return JSON.parse(text);
        } catch {
          throw new UpstreamError(options.name, 'malformed response (not JSON)', res.status);
        }
      } catch (err) {
        if (err instanceof UpstreamError) throw err;
        const e = err as Error;
        lastError = new UpstreamError(options.name, e.name === 'TimeoutError' ? `timed out after ${options.timeoutMs} ms` : `network error: ${e.message}`);
      }
    }
    throw lastError!;
  }

  const breaker = new CircuitBreaker(attempt, {
    timeout: false,
    errorThresholdPercentage: options.errorThresholdPercentage ?? 50,
    volumeThreshold: options.volumeThreshold ?? 5,
    resetTimeout: options.resetTimeoutMs ?? 30_000,
    // A 4xx is the caller's mistake, not a sick provider.
    errorFilter: (err: UpstreamError) => err instanceof UpstreamError && err.status !== undefined && err.status < 500 && err.status !== 429,
  });
  breaker.on('open', () => log.warn('circuit opened: failing fast'));
  breaker.on('close', () => log.info('circuit closed'));

  return {
    name: options.name,
    breaker,
    async getJson<S extends z.ZodType>(url: string, schema: S): Promise<z.output<S>> {
      let body: unknown;
      try {
        body = await limit(() => breaker.fire(url));
      } catch (err) {
        const open = breaker.opened || (err as { code?: string }).code === 'EOPENBREAKER';
        const e = err instanceof UpstreamError ? err : new UpstreamError(options.name, open ? 'circuit open (provider failing)' : (err as Error).message);
        log.warn({ url: redact(url), cause: e.message }, 'upstream call failed');
        throw e;
      }
      const parsed = schema.safeParse(body);
      if (!parsed.success) {
        const e = new UpstreamError(options.name, `malformed response: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
        log.warn({ url: redact(url), cause: e.message }, 'upstream call failed');
        throw e;
      }
      return parsed.data;
    },
  };
}

export type Upstream = ReturnType<typeof createUpstream>;

/** Open-Meteo and others answer errors as JSON with a `reason`. */
function reasonOf(text: string): string | null {
  try {
    const body = JSON.parse(text) as { reason?: unknown; error?: unknown; message?: unknown };
    const r = body.reason ?? body.message ?? (typeof body.error === 'string' ? body.error : null);
    return typeof r === 'string' ? r : null;
  } catch {
    return null;
  }
}

/** Query strings carry coordinates, nothing secret; keep log lines short all the same. */
const redact = (url: string) => (url.length > 300 ? `${url.slice(0, 300)}…` : url);
