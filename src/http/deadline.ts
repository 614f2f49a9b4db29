export class DeadlineError extends Error {
  constructor(readonly ms: number) {
    super(`execution took longer than ${ms} ms`);
  }
}

/** Rejects with DeadlineError when `work` has not settled within `ms`; aborts `controller` then. */
export function withDeadline<T>(work: Promise<T>, ms: number, controller?: AbortController): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller?.abort();
      reject(new DeadlineError(ms));
    }, ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
