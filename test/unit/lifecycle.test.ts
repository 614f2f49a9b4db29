import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { Lifecycle } from '../../src/app/lifecycle.js';

describe('the lifecycle of the server’s parts', () => {
  it('at shutdown every part stops, newest first, then every part closes, newest first', async () => {
    const life = new Lifecycle(pino({ level: 'silent' }));
    const done: string[] = [];
    for (const part of ['storage', 'data', 'http']) {
      life.onStop(part, () => void done.push(`stop ${part}`));
      life.onClose(part, async ({ graceMs }) => {
        await Promise.resolve();
        done.push(`close ${part} (${graceMs} ms)`);
      });
    }
    await life.close({ graceMs: 5 });
    expect(done).toEqual(['stop http', 'stop data', 'stop storage', 'close http (5 ms)', 'close data (5 ms)', 'close storage (5 ms)']);
  });

  it('a part that fails to close is logged with its name, and the parts before it still close; a second close is the same one', async () => {
    const logged: { part?: string; msg?: string }[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
    const life = new Lifecycle(logger);
    const done: string[] = [];
    life.onClose('storage', () => void done.push('storage'));
    life.onClose('replicas', () => {
      throw new Error('redis went away');
    });
    life.onClose('http', () => void done.push('http'));
    const first = life.close({ graceMs: 0 });
    expect(life.close({ graceMs: 0 })).toBe(first);
    await first;
    expect(done).toEqual(['http', 'storage']);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ part: 'replicas', msg: 'a part of the server did not shut down cleanly' });
  });
});
