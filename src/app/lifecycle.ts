import type { Logger } from '../lib/logger.js';

/** How the server is being shut down. */
export interface Shutdown {
  /** How long requests in flight may take to finish before their connections are cut (ms). */
  graceMs: number;
}

type Hook = { part: string; run: (shutdown: Shutdown) => unknown };

/**
 * The server's parts, in the order they started, and what each must do at shutdown: each part
 * registers what it opened as it opens it, and shutdown undoes them newest first (fastify's
 * onClose, Yoga's onDispose). Two rounds: first every part stops taking work and tells its
 * long-lived clients (`onStop`), then every part lets go of what it holds (`onClose`), so the
 * database closes after everything that writes to it. A part that fails to close is logged and
 * the rest still close.
 */
export class Lifecycle {
  private readonly stops: Hook[] = [];
  private readonly closes: Hook[] = [];
  private closing: Promise<void> | null = null;

  constructor(private readonly logger: Logger) {}

  /** At shutdown's start, newest first: stop taking work, end long-lived streams. */
  onStop(part: string, run: (shutdown: Shutdown) => unknown): void {
    this.stops.push({ part, run });
  }

  /** After every part has stopped, newest first: close what the part opened. */
  onClose(part: string, run: (shutdown: Shutdown) => unknown): void {
    this.closes.push({ part, run });
  }

  /** Shuts every part down (once; again is the same shutdown). */
  close(shutdown: Shutdown): Promise<void> {
    this.closing ??= (async () => {
      for (const hooks of [this.stops, this.closes])
        for (const hook of hooks.toReversed()) {
          try {
            await hook.run(shutdown);
          } catch (err) {
            this.logger.error({ err, part: hook.part }, 'a part of the server did not shut down cleanly');
          }
        }
    })();
    return this.closing;
  }
}
