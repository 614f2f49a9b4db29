import type { ResortSnapshot } from './snapshot.js';

/**
 * Resort snapshots depend only on the hour, the stored weather and the inventory, so they are
 * kept across requests and dropped when any of those changes (a new generation key). Without it
 * every ranking would read every trail of every resort on every request.
 */
export class SnapshotStore {
  private generation = '';
  private readonly byResort = new Map<string, ResortSnapshot>();

  /** The snapshots of this generation; a new key empties the store. */
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
