import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Starts the longest files first, so the workers finish together instead of one waiting for a
 * long file that started last. Vitest orders by the durations it cached on earlier runs, which a
 * fresh clone (CI) does not have; this list is what those durations say (import of 6,990 areas,
 * property runs, spawned CLIs and servers).
 */
const SLOWEST = [
  'sync',
  'replicas',
  'abuse',
  'importer',
  'auth',
  'bounded-work',
  'properties',
  'browser',
  'shutdown',
  'first-hour',
  'response-cache',
  'db-build',
];

const rank = (file: TestSpecification) => {
  const i = SLOWEST.findIndex((name) => file.moduleId.endsWith(`/${name}.test.ts`));
  return i === -1 ? SLOWEST.length : i;
};

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
