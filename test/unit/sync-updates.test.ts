import { rmSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/data/db/open.js';
import { simulatedProvider } from '../../src/providers/simulated.js';
import { ResortRepository } from '../../src/data/repositories/resorts.js';
import { SyncRepository } from '../../src/data/repositories/sync.js';
import { SyncRunner } from '../../src/sync/runner.js';
import { privateDatabase } from '../helpers/server.js';

describe('sync status updates (what syncProgress subscribers read)', () => {
  it('a change between the first answer and the next read is not lost', async () => {
    const file = privateDatabase('gateway-sync-updates-');
    const db = openDatabase(file);
    const runner = new SyncRunner({
      runs: new SyncRepository(db),
      resorts: new ResortRepository(db),
      conditions: simulatedProvider,
      lifts: null,
      liftieIds: new Map(),
      now: () => new Date('2027-01-15T12:00:00Z'),
      logger: pino({ level: 'silent' }),
      concurrency: 4,
      runBudgetMs: 60_000,
    });
    try {
      const updates = runner.updates();
      expect((await updates.next()).value).toMatchObject({ state: 'IDLE' });
      // The run starts (and says so) before the subscriber asks for the next update.
      runner.start('MANUAL');
      expect((await updates.next()).value).toMatchObject({ state: 'RUNNING', progress: { done: 0, total: 241 } });
      await updates.return(undefined);
      await runner.idle();
    } finally {
      db.close();
      // Stryker runs this once per mutant it covers: 15 MB a copy, kept until the run ends otherwise.
      rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });
});
