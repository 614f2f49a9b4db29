import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * For Stryker (vitest.mutation.config.ts), whose runner stops a mutant's run at its first failing
 * test: the file that failed last runs first (a mutant's neighbour in the code is often killed by
 * the same file), then the quickest files by the durations of their last runs. Vitest's own order
 * is the longest first, which starts every mutant with the socket tests' servers and slowest waits.
 */
export default class CheapestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx;
    const last = (file: TestSpecification) => cache.getFileTestResults(`${file.project.name}:${path.relative(config.root, file.moduleId)}`);
    const rank = (file: TestSpecification): [number, number] => {
      const result = last(file);
      return result ? [result.failed ? 0 : 1, result.duration] : [1, Number.POSITIVE_INFINITY];
    };
    return [...files].sort((a, b) => {
      const [failedA, durationA] = rank(a);
      const [failedB, durationB] = rank(b);
      // Two files never run (both infinite) are equal, not NaN apart.
      return failedA - failedB || (durationA === durationB ? 0 : durationA - durationB);
    });
  }
}
