/**
 * The provider calls a request has open. At the request's deadline they are given up first: each
 * fails as the provider's failure (UPSTREAM_FAILED, 502), the cause, and the request answers with
 * that. Only a request still unanswered at the next sweep is cut with TIMEOUT (503). Which of the
 * two a client gets no longer depends on which timer the event loop runs first.
 */
export class ProviderCalls {
  /** Calls under way (their attempts, backoffs and retries). */
  open = 0;
  private controller: AbortController | null = null;

  /** Aborted when the calls are given up. */
  get signal(): AbortSignal {
    return (this.controller ??= new AbortController()).signal;
  }

  /** Gives the open calls up, once: whether there were any to give up. */
  giveUp(): boolean {
    if (this.open === 0 || this.controller?.signal.aborted) return false;
    (this.controller ??= new AbortController()).abort();
    return true;
  }
}
