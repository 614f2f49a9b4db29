import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { SetupError } from '../../lib/errors.js';
import { isAlive } from './holders.js';

/** The longest one process waits for another's build (a full build takes seconds). */
const WAIT_MS = 120_000;
const POLL_MS = 50;

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `work` while this process alone may build `file`: a lock file made with O_EXCL, holding
 * the builder's pid. Several commands started at once on a new or outdated database (`npm run
 * keys` in parallel) each built it and renamed their copy over the others': keys written in
 * between were lost. Now one builds and the rest wait, then find it built. A lock left by a
 * process that died is taken over.
 */
export function withBuildLock<T>(file: string, work: () => T): T {
  const lock = `${file}-build-lock`;
  const started = Date.now();
  for (;;) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder = Number.NaN;
    try {
      holder = Number(readFileSync(lock, 'utf8'));
    } catch {
      continue; // gone meanwhile: try again at once
    }
    // Written but not yet filled (pid read as 0) counts as alive: its maker is between two calls.
    if (holder > 0 && !isAlive(holder)) {
      rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() - started > WAIT_MS)
      throw new SetupError(`Another process (pid ${holder}) has been building ${file} for over ${WAIT_MS / 1000} s; try again when it is done.`);
    Atomics.wait(pause, 0, 0, POLL_MS);
  }
  try {
    return work();
  } finally {
    rmSync(lock, { force: true });
  }
}
