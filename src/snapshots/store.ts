import type { ResortSnapshot } from './loaders.js';

/**
 * Resort snapshots (report, trail and lift states) depend only on the day, the stored weather and
 * the inventory, so they are kept across requests and dropped when any of those changes. Without
 * it every ranking would read every trail of every resort on every request.
 */
export class SnapshotCache {
  private generation = '';
  private readonly byResort = new Map<string, ResortSnapshot>();

  /** The cache for this generation key; a new key empties it. */
  private at(generation: string): Map<string, ResortSnapshot> {
    if (generation !== this.generation) {
      this.byResort.clear();
      this.generation = generation;
    }
    return this.byResort;
  }

  get(generation: string, resortId: string): ResortSnapshot | undefined {
    return this.at(generation).get(resortId);
  }

  set(generation: string, snapshot: ResortSnapshot): void {
    this.at(generation).set(snapshot.resort.id, snapshot);
  }
}
