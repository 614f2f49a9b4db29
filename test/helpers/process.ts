import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { clockEnv } from './clock.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ServerProcess {
  child: ChildProcess;
  /** The base URL, once the server says it listens. */
  url: Promise<string>;
  /** Everything it has written to stdout (its log) so far. */
  output(): string;
  /** Everything it has written to stderr so far (also passed on to the test's stderr). */
  errors(): string;
  exited: Promise<{ code: number | null; at: number }>;
}

/** The suite's own bundle of src/, built once by test/global-setup.ts. */
export const TEST_BUNDLE = path.join(ROOT, '.test-dist', 'server.js');

/**
 * `npm run keys` / `npm run import` as a command line: the bundle of the same source (src/cli/),
 * which starts in a quarter of tsx's time; the suite runs these tools dozens of times. One test
 * runs the npm script itself (auth.test.ts).
 */
export const cliCommand = (tool: 'keys' | 'import' | 'build-db', ...args: string[]): [string, string[]] => [
  process.execPath,
  [path.join(ROOT, '.test-dist', `${tool}.js`), ...args],
];

/**
 * `npm run keys` in a process of its own (the bundle of src/cli/keys.ts) against a database.
 * Asynchronous: a test's server runs in the test's process, and a synchronous spawn would stop it
 * answering (its keep-alive sockets then time out under the client's feet).
 */
export function keysCli(dbPath: string, ...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return runCommand(dbPath, cliCommand('keys', ...args));
}

/** A command with DB_PATH and the run's clock (and `env`), its exit status and output. */
export function runCommand(
  dbPath: string,
  [command, args]: [string, string[]],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: ROOT, env: { ...process.env, DB_PATH: dbPath, ...clockEnv(), ...env } }, (err, stdout, stderr) =>
      resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * The server as `npm start` runs it — the bundle of src/, plain JavaScript, in a process of its
 * own — on an ephemeral port: for what only a whole process shows (its log, its signals, its
 * exit). A bundle starts in a fraction of tsx's time, which the replica tests pay many times.
 */
/**
 * Servers still running: when the worker that started them ends, they end with it (a test that
 * failed before its cleanup must not leave a server running after the suite).
 */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export function spawnServer(dbPath: string, env: Record<string, string> = {}, script = TEST_BUNDLE): ServerProcess {
  const child = spawn(process.execPath, [script], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DB_PATH: dbPath,
      LOG_LEVEL: 'info',
      SYNC_INTERVAL_MINUTES: '0',
      WARM_UP_ROUNDS: '0',
      ...clockEnv(),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err += d;
    process.stderr.write(d);
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d;
  });
  const url = new Promise<string>((resolve, reject) => {
    const onData = () => {
      const m = out.match(/serving REST at (http:\/\/[\d.:]+)\/api/);
      if (m) {
        child.stdout!.off('data', onData);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', () => reject(new Error(`the server exited before listening: ${out.slice(0, 500)}`)));
  });
  // A test that waits for the exit instead (a start that must fail) does not ask for the URL.
  url.catch(() => {});
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.once('exit', (code) => resolve({ code, at: Date.now() })));
  return { child, url, output: () => out, errors: () => err, exited };
}

/**
 * For a test that runs replicas: they are killed when it ends, and if it fails, each one's log
 * lines matching `said` (warnings and errors always) are printed, since their output is piped.
 */
export function watchReplicas(
  replicas: ServerProcess[],
  said: RegExp,
  hooks: { onTestFinished(fn: () => Promise<void>): void; onTestFailed(fn: () => void): void },
): void {
  hooks.onTestFinished(async () => {
    for (const r of replicas) r.child.kill('SIGKILL');
    await Promise.all(replicas.map((r) => r.exited));
  });
  hooks.onTestFailed(() => {
    for (const [i, r] of replicas.entries())
      console.error(
        `replica-${i} said:\n${r
          .output()
          .split('\n')
          .filter((l) => /"level":[456]0/.test(l) || said.test(l))
          .join('\n')}`,
      );
  });
}
