import CircuitBreaker from 'opossum';
import type { ProviderCalls } from '../lib/provider-calls.js';
import { trace } from '@opentelemetry/api';
import { traced, tracingOn } from '../telemetry/trace.js';
import pLimit from 'p-limit';
import type { z } from 'zod';
import type { Logger } from '../lib/logger.js';

/**
 * What went wrong with a provider, as a fixed category: the API and the sync history show only
 * this (provider text can hold its internals); the log keeps the detail.
 */
export type UpstreamFailure =
  | 'timed out'
  | 'HTTP error'
  | 'malformed response'
  | 'response too large'
  | 'network error'
  | 'circuit open'
  | 'no time left'
  | 'cancelled';

/** A provider could not answer: the API says "provider lookup error" (502), the log says why. */
export class UpstreamError extends Error {
  constructor(
    readonly provider: string,
    readonly failure: UpstreamFailure,
    /** For the log only. */
    readonly detail: string,
    readonly status?: number,
  ) {
    super(`${provider}: ${failure}${detail ? ` (${detail})` : ''}`);
  }

  /** The text safe to show a client: the provider and the category, nothing the provider said. */
  get publicMessage(): string {
    return `${this.provider}: ${this.failure}`;
  }
}

export interface UpstreamOptions {
  name: string;
  logger: Logger;
  /** Per attempt; an attempt never outlives the caller's deadline either. */
  timeoutMs: number;
  /** Extra attempts after the first, for network errors, time-outs, 429 and 5xx. */
  retries: number;
  /** First backoff; doubled per attempt, with jitter. */
  backoffMs: number;
  /** Requests in flight to this provider at once. */
  concurrency: number;
  /** The largest response body read; a longer one is a failure (and is not read further). */
  maxBytes?: number;
  /** Open the circuit after this share (%) of failures among at least `volumeThreshold` attempts. */
  errorThresholdPercentage?: number;
  volumeThreshold?: number;
  /** How long the circuit stays open before one trial call. */
  resetTimeoutMs?: number;
  /** Told the outcome of every call ('ok' or the failure's category), for /metrics. */
  observe?: (outcome: string) => void;
  /** The jitter's source (tests make it reproducible); Math.random by default. */
  random?: () => number;
  /** How a backoff waits (tests record it instead); a timer by default. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<unknown>;
}

/** What a caller can bound a call by: its abort signal and its deadline (performance.now() time). */
export interface CallBounds {
  signal?: AbortSignal;
  deadline?: number;
  /** The caller's open provider calls: given up at its deadline, an attempt fails as timed out. */
  providers?: ProviderCalls;
}

const RETRYABLE = (status: number) => status === 429 || status >= 500;
/** An attempt needs at least this long to be worth making before a deadline. */
const MIN_ATTEMPT_MS = 100;
/** Time kept back from the caller's deadline, so its own answer (a 502) still fits before it. */
const DEADLINE_MARGIN_MS = 250;
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

/**
 * One client per provider: bounded concurrency (p-limit), a time-out per attempt that also fits
 * inside the caller's deadline, bounded retries with exponential backoff, a byte cap on response
 * bodies (read as a stream), and a circuit breaker (opossum) over single attempts, so time-outs
 * count as failures like errors do and a hung provider is failed fast after a few of them.
 * Responses are validated with a zod schema; anything else is an UpstreamError.
 */
export function createUpstream(options: UpstreamOptions) {
  const limit = pLimit(options.concurrency);
  const log = options.logger.child({ provider: options.name });
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const fail = (failure: UpstreamFailure, detail = '', status?: number) => new UpstreamError(options.name, failure, detail, status);
  const random = options.random ?? Math.random;
  const wait = options.sleep ?? sleep;

  /** One HTTP request: the body as JSON, or an UpstreamError. */
  async function attemptOnce(url: string, timeoutMs: number, signal: AbortSignal | undefined, givenUp: AbortSignal | undefined): Promise<unknown> {
    // Given up at the caller's deadline: the provider did not answer in time, as a time-out says.
    const timeout = givenUp ? AbortSignal.any([AbortSignal.timeout(timeoutMs), givenUp]) : AbortSignal.timeout(timeoutMs);
    const stop = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await fetch(url, { signal: stop, headers: { accept: 'application/json' } });
    } catch (err) {
      throw abortedOrNetwork(err as Error, timeout, timeoutMs);
    }
    let text: string;
    try {
      text = await readCapped(res, maxBytes, stop);
    } catch (err) {
      if (err instanceof UpstreamError) throw err;
      throw abortedOrNetwork(err as Error, timeout, timeoutMs);
    }
    if (!res.ok) throw fail('HTTP error', `HTTP ${res.status}: ${reasonOf(text) ?? ''}`.trim(), res.status);
    try {
      return JSON.parse(text);
    } catch {
      throw fail('malformed response', 'not JSON', res.status);
    }
  }

  function abortedOrNetwork(err: Error, timeout: AbortSignal, timeoutMs: number): UpstreamError {
    if (timeout.aborted) return fail('timed out', `after ${timeoutMs} ms`);
    if (err.name === 'AbortError' || err.name === 'TimeoutError') return fail('cancelled', 'the request was cancelled');
    return fail('network error', err.message);
  }

  /** Reads a body as text, refusing (and not reading further) past `max` bytes. */
  async function readCapped(res: Response, max: number, signal: AbortSignal): Promise<string> {
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (declared > max) {
      await res.body?.cancel().catch(() => {});
      throw fail('response too large', `content-length ${declared} > ${max}`);
    }
    if (!res.body) return '';
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => {});
        throw fail('response too large', `more than ${max} bytes`);
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks, size).toString('utf8');
  }

  // The breaker sees single attempts: five failures (time-outs included) within a minute, more
  // than half of the attempts, open it; while open every call fails at once.
  const breaker = new CircuitBreaker(attemptOnce, {
    timeout: false,
    errorThresholdPercentage: options.errorThresholdPercentage ?? 50,
    volumeThreshold: options.volumeThreshold ?? 5,
    resetTimeout: options.resetTimeoutMs ?? 30_000,
    rollingCountTimeout: 60_000,
    rollingCountBuckets: 12,
    // A 4xx is the caller's mistake and a cancellation the caller's choice, not a sick provider.
    errorFilter: (err: UpstreamError) =>
      err instanceof UpstreamError && ((err.status !== undefined && err.status < 500 && err.status !== 429) || err.failure === 'cancelled'),
  });
  breaker.on('open', () => log.warn('circuit opened: failing fast'));
  breaker.on('close', () => log.info('circuit closed'));

  async function call(url: string, bounds: CallBounds): Promise<unknown> {
    const providers = bounds.providers;
    if (!providers) return attempts(url, bounds);
    providers.open++;
    try {
      return await attempts(url, bounds);
    } finally {
      providers.open--;
    }
  }

  async function attempts(url: string, bounds: CallBounds): Promise<unknown> {
    let last: UpstreamError | null = null;
    for (let i = 0; i <= options.retries; i++) {
      const left = bounds.deadline === undefined ? Infinity : bounds.deadline - DEADLINE_MARGIN_MS - performance.now();
      if (i > 0) {
        // Exponential, with "equal jitter": half the step fixed, half random, so clients that
        // failed together do not retry together.
        const backoff = Math.min(options.backoffMs * 2 ** (i - 1) * (0.5 + random() / 2), left - MIN_ATTEMPT_MS);
        if (backoff < 0) break;
        await wait(backoff, bounds.signal);
      }
      const remaining = bounds.deadline === undefined ? Infinity : bounds.deadline - DEADLINE_MARGIN_MS - performance.now();
      if (remaining < MIN_ATTEMPT_MS) break;
      if (bounds.signal?.aborted) throw fail('cancelled', 'the request was cancelled');
      if (i > 0) trace.getActiveSpan()?.addEvent('retry', { attempt: i + 1, cause: last?.message ?? '' });
      try {
        // Whole milliseconds: AbortSignal.timeout refuses a fraction (what is left of a deadline is one).
        return await breaker.fire(url, Math.floor(Math.min(options.timeoutMs, remaining)), bounds.signal, bounds.providers?.signal);
      } catch (err) {
        // Rejected by the open breaker without an attempt (an attempt's own failure keeps its cause).
        if ((err as { code?: string }).code === 'EOPENBREAKER') throw last ?? fail('circuit open', 'failing fast after repeated failures');
        if (!(err instanceof UpstreamError)) throw fail('network error', (err as Error).message);
        last = err;
        if (err.failure === 'cancelled' || err.failure === 'response too large' || (err.status !== undefined && !RETRYABLE(err.status))) throw err;
      }
    }
    throw last ?? fail('no time left', "the caller's deadline left no time for an attempt");
  }

  return {
    name: options.name,
    breaker,
    async getJson<S extends z.ZodType>(url: string, schema: S, bounds: CallBounds = {}): Promise<z.output<S>> {
      let body: unknown;
      try {
        body = await (tracingOn()
          ? traced(`upstream ${options.name}`, { 'upstream.provider': options.name, 'url.full': redact(url), 'upstream.circuit_open': breaker.opened }, () =>
              limit(() => call(url, bounds)),
            )
          : limit(() => call(url, bounds)));
      } catch (err) {
        const e = err instanceof UpstreamError ? err : fail('network error', (err as Error).message);
        log.warn({ url: redact(url), cause: e.message }, 'upstream call failed');
        options.observe?.(e.failure);
        throw e;
      }
      const parsed = schema.safeParse(body);
      if (!parsed.success) {
        const e = fail('malformed response', `${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
        log.warn({ url: redact(url), cause: e.message }, 'upstream call failed');
        options.observe?.(e.failure);
        throw e;
      }
      options.observe?.('ok');
      return parsed.data;
    },
  };
}

export type Upstream = ReturnType<typeof createUpstream>;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** Open-Meteo and others answer errors as JSON with a `reason`. */
function reasonOf(text: string): string | null {
  try {
    const body = JSON.parse(text) as { reason?: unknown; error?: unknown; message?: unknown };
    const r = body.reason ?? body.message ?? (typeof body.error === 'string' ? body.error : null);
    return typeof r === 'string' ? r.slice(0, 300) : null;
  } catch {
    return null;
  }
}

/** Query strings carry coordinates, nothing secret; keep log lines short all the same. */
const redact = (url: string) => (url.length > 300 ? `${url.slice(0, 300)}…` : url);
