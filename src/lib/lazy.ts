/**
 * A value built on first use, or earlier by `warm()` (called once the server listens), so that
 * start-up answers its first request before building what only some requests need.
 */
export class Lazy<T> {
  private value: T | undefined;

  constructor(private readonly build: () => T) {}

  get(): T {
    return (this.value ??= this.build());
  }

  warm(): void {
    this.get();
  }
}
