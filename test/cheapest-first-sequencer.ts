import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** What a file's runs in this process have shown: its cost, and how often it failed (killed). */
interface Record {
  /** The result object vitest's cache held when last read: a new one means the file ran since. */
  seen: unknown;
  duration: number;
  killRate: number;
}

/** How much one run moves a file's estimates: recent mutants, the neighbours in the code, count most. */
const WEIGHT = 0.3;
const records = new Map<string, Record>();

/**
 * For Stryker (vitest.mutation.config.ts), whose runner stops a mutant's run at its first failing
 * test: a mutant's files run in order of expected cost to a kill, a file's duration over how often
 * it has killed lately. Vitest's own order is the longest first, which starts every mutant with the
 * socket tests' servers and slowest waits; the quickest first runs a cheap file that never kills a
 * module's mutants before the one that always does; the file that killed the last mutant first ran
 * a server's tests for every sphere-tree mutant its own unit tests kill in a fraction of the time.
 * Each Stryker worker is one process that keeps this module between mutants, neighbours in the code.
 */
export default class CheapestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const cost = (file: TestSpecification): number => {
      const key = `${file.project.name}:${path.relative(config.root, file.moduleId)}`;
      const last = cache.getFileTestResults(key);
      // Never run: its cost is unknown, after every file whose cost is known.
      if (!last) return Number.POSITIVE_INFINITY;
      let record = records.get(key);
      if (!record) records.set(key, (record = { seen: last, duration: last.duration, killRate: last.failed ? 1 : 0.5 }));
      else if (record.seen !== last) {
        record.seen = last;
        record.duration += WEIGHT * (last.duration - record.duration);
        record.killRate += WEIGHT * ((last.failed ? 1 : 0) - record.killRate);
      }
      return record.duration / Math.max(record.killRate, 0.01);
    };
    const costs = new Map(files.map((file) => [file, cost(file)]));
    return [...files].sort((a, b) => {
      const costA = costs.get(a)!;
      const costB = costs.get(b)!;
      // Two files never run (both infinite) are equal, not NaN apart.
      return costA === costB ? 0 : costA - costB;
    });
  }
}
