import { parseArgs } from 'node:util';
import { loadConfig } from '../lib/config.js';
import { ensureDatabase } from '../data/db/build.js';
import { SetupError } from '../lib/errors.js';
import { openDatabase } from '../data/db/open.js';
import { KeyRepository, replacedName, type ApiKeyRecord, type CreateOutcome, type NewKey, type ReplaceOutcome } from '../data/repositories/keys.js';
import { connectRedis, describeTarget, waitUntilUp } from '../cluster/redis.js';
import { clockFrom } from '../lib/clock.js';
import { RedisKeyStore } from '../cluster/redis-keys.js';
import { createLogger } from '../lib/logger.js';
import { generateApiKey, hashApiKey } from '../auth/api-key.js';
import { monthOf } from '../auth/guard.js';
import { KNOWN_SCOPES } from '../auth/scopes.js';
import { escaped, keyTextProblem, shownName } from '../auth/key-name.js';
import { revocationOf } from './revoke-targets.js';

/** The bounds of a key's limits: streams (a frontend's key across all its browsers), requests a second and a month. */
const LIMITS = { streams: 1_000_000, rate: 1_000_000, quota: 1_000_000_000_000 } as const;

const USAGE = `npm run keys -- <command>

  create --name NAME [--plan free] [--quota 10000] [--rate 25] [--streams N] [--scope admin] [--replace]
         prints the new key once; only its SHA-256 is stored. NAME: visible, printable characters, at
         most 100. --scope admin may start sync runs; --streams: subscriptions it may hold open
         at once (a frontend's key serves many browsers; STREAMS_PER_KEY when not given);
         --replace revokes the key that has the name and makes a new one under it
  list   every key with its id, plan, limits, state and this month's requests
  revoke NAME...      revokes the keys with these names
  revoke --id ID...   revokes the keys with these ids (as list shows them)
         all or nothing: a name or id that matches no active key, or more than one, revokes none

Replicas keep their keys in Redis: run it with their REDIS_URL.`;

/** How the command ended early: the sentence it told the operator (keysCommand answers 2). */
class Failure {
  constructor(readonly text: string) {}
}

/**
 * Every failure is a sentence and exit status 2, never a stack or a SQL error; what an argument
 * brought in is escaped, never printed for the terminal to act on.
 */
function fail(message: string, usage = true): never {
  const safe = message.split('\n').map(escaped).join('\n');
  throw new Failure(usage ? `${safe}\n\n${USAGE}` : safe);
}

function parse(args: string[]) {
  try {
    // No defaults here: what was given is what `values` holds, so an option another command takes is seen.
    return parseArgs({
      args,
      allowPositionals: true,
      tokens: true,
      options: {
        name: { type: 'string' },
        plan: { type: 'string' },
        quota: { type: 'string' },
        rate: { type: 'string' },
        streams: { type: 'string' },
        scope: { type: 'string', multiple: true },
        replace: { type: 'boolean' },
        id: { type: 'boolean' },
      },
    });
  } catch (err) {
    return fail((err as Error).message);
  }
}

/** The options each command takes, and whether it takes arguments after its name (revoke's names or ids). */
const COMMANDS: Record<string, { options: readonly string[]; takesArguments: boolean }> = {
  create: { options: ['name', 'plan', 'quota', 'rate', 'streams', 'scope', 'replace'], takesArguments: false },
  list: { options: [], takesArguments: false },
  revoke: { options: ['id'], takesArguments: true },
};

/**
 * A command given what it does not take fails before it does anything: `create --name my app`
 * would make a key named "my", and `revoke x --scope admin` revoke x and drop the rest.
 */
function checkArguments(command: string, given: readonly string[], options: readonly string[]): void {
  const spec = COMMANDS[command];
  if (!spec) fail(command ? `unknown command ${command}` : 'a command is needed');
  const foreign = options.filter((o) => !spec.options.includes(o));
  if (foreign.length > 0) fail(`${command} does not take ${foreign.map((o) => `--${o}`).join(', ')}`);
  if (!spec.takesArguments && given.length > 0)
    fail(
      `${command} takes no arguments besides its options; it was also given ${given.map((a) => `"${a}"`).join(' ')}` +
        (command === 'create' ? ' (a name with spaces goes in quotes: --name "my app")' : ''),
    );
}

/** A whole number as typed, digits only (no sign, exponent, hex or spaces), within [min, max]; else the command fails naming the bounds. */
function wholeNumber(option: string, text: string, min: number, max: number): number {
  const n = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= min && n <= max)) fail(`${option} must be a whole number from ${min} to ${max}, written in digits; it was "${text}"`);
  return n;
}

/** Where keys live: the SQLite file, or Redis when REDIS_URL is set (replicas share them there). */
interface KeyStore {
  createNamed(key: NewKey): CreateOutcome | Promise<CreateOutcome>;
  replace(key: NewKey, at: string, old: ApiKeyRecord): ReplaceOutcome | Promise<ReplaceOutcome>;
  findByName(name: string): ApiKeyRecord | undefined | Promise<ApiKeyRecord | undefined>;
  list(month: string): (ApiKeyRecord & { requests: number })[] | Promise<(ApiKeyRecord & { requests: number })[]>;
  /** All or none: the keys that were no longer active (then none was revoked). */
  revoke(keys: readonly ApiKeyRecord[], at: string): ApiKeyRecord[] | Promise<ApiKeyRecord[]>;
}
/**
 * A store's failure as the operator can act on it: SQLite's and Redis' own words name their
 * internals, so the code to look up is given instead (a SQLite transaction that fails changes
 * nothing).
 */
function storeFailure(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (code === 'SQLITE_BUSY') return 'the database is busy (another process holds its lock); try again in a moment';
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return `the database refused it (${code}); nothing was changed`;
  // A reply from Redis starts with its error code (NOPERM, OOM, WRONGTYPE, ERR …). A script that
  // fails part-way keeps what it wrote before (Redis has no rollback): the list shows what is.
  if ((err as Error).name === 'ReplyError') return `Redis refused it (${(err as Error).message.split(' ')[0]}); \`npm run keys -- list\` shows what it holds`;
  return (err as Error).message;
}

/** A store's failure (Redis gone mid-command, a locked database) as a sentence. */
async function attempt<T>(what: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    return fail(`Could not ${what}: ${storeFailure(err)}.`, false);
  }
}

/** What the command reads and writes: its arguments, environment and output, and the wall clock CLOCK_START runs on from. */
export interface KeysIo {
  argv: string[];
  env: NodeJS.ProcessEnv;
  /** A line of the command's output (stdout). */
  out(line: string): void;
  /** A failure's sentence (stderr). */
  err(text: string): void;
  wallMs?: () => number;
}

/**
 * `npm run keys`: the exit status (0 done, 2 refused: the reason on `err`). On a refusal the
 * SQLite file is closed, a Redis link left for the process's exit to end (as it always was).
 */
export async function keysCommand(io: KeysIo): Promise<number> {
  let closeOnFailure = () => {};
  try {
    await run(io, (close) => {
      closeOnFailure = close;
    });
    return 0;
  } catch (err) {
    if (!(err instanceof Failure)) throw err;
    closeOnFailure();
    io.err(err.text);
    return 2;
  }
}

async function run(io: KeysIo, onOpen: (close: () => void) => void): Promise<void> {
  const { positionals, values, tokens } = parse(io.argv);
  // The last of two values would win unseen: `--name x --name y` is a typo, not a choice.
  const given = new Map<string, number>();
  for (const t of tokens) if (t.kind === 'option' && t.name !== 'scope') given.set(t.name, (given.get(t.name) ?? 0) + 1);
  const repeated = [...given].filter(([, times]) => times > 1).map(([name]) => name);
  if (repeated.length > 0) fail(`${repeated.map((o) => `--${o}`).join(', ')} given more than once`);
  checkArguments(positionals[0] ?? '', positionals.slice(1), Object.keys(values));

  /**
   * create's arguments, checked before the store is opened: a typo is told at once, not after a
   * database build or a wait for Redis (nor hidden behind "Redis is unreachable").
   */
  function createArguments() {
    // As typed, in one normal form (NFC): "résumé" typed either way is one name. Nothing trimmed unseen.
    const name = values.name?.normalize('NFC');
    if (!name) fail('create needs --name');
    const plan = (values.plan ?? 'free').normalize('NFC');
    const textProblem = keyTextProblem('--name', name) ?? keyTextProblem('--plan', plan);
    if (textProblem) fail(textProblem);
    const quota = wholeNumber('--quota', values.quota ?? '10000', 0, LIMITS.quota);
    const rate = wholeNumber('--rate', values.rate ?? '25', 1, LIMITS.rate);
    const streams = values.streams === undefined ? null : wholeNumber('--streams', values.streams, 1, LIMITS.streams);
    const scopes = [...new Set(values.scope ?? [])];
    for (const s of scopes) if (!KNOWN_SCOPES.includes(s)) fail(`unknown scope ${s}; known: ${KNOWN_SCOPES.join(', ')}`);
    return { name, plan, quota, rate, streams, scopes };
  }
  const creating = positionals[0] === 'create' ? createArguments() : null;

  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(io.env);
  } catch (err) {
    fail((err as Error).message, false);
  }
  // The server's clock (CLOCK_START too): the month whose usage is listed is the server's month.
  const now = clockFrom(config.clockStart, io.wallMs)();

  let keys: KeyStore;
  let close: () => Promise<void> | void;
  if (config.redis) {
    // Quiet: only what went wrong is said (the command's own sentences).
    const link = connectRedis(config.redis.target, createLogger('silent'));
    if (!(await waitUntilUp(link, 5000))) {
      await link.close();
      fail(`Redis (${describeTarget(config.redis.target)}) is unreachable: the replicas keep their keys there, so no key can be made or changed now.`, false);
    }
    keys = new RedisKeyStore(link);
    close = () => link.close();
  } else {
    let db: ReturnType<typeof openDatabase>;
    try {
      ensureDatabase(config.dbPath);
      db = openDatabase(config.dbPath);
    } catch (err) {
      if (err instanceof SetupError) fail(err.message, false);
      fail(`Cannot open the database ${config.dbPath}: ${storeFailure(err)}`, false);
    }
    const repository = new KeyRepository(db);
    // A replica's database: its server checks keys in Redis, so a key written here is refused by every replica.
    if (repository.keyStore() === 'redis') {
      db.close();
      fail(
        `${config.dbPath} belongs to a replica: its server keeps keys in Redis (REDIS_URL), where every replica checks them, ` +
          `so a key made or revoked here would not count. Run the command with the replicas' REDIS_URL set.`,
        false,
      );
    }
    keys = repository;
    close = () => void db.close();
    onOpen(close);
  }

  switch (positionals[0]) {
    case 'create': {
      const { name, plan, quota, rate, streams, scopes } = creating!;
      const taken = await attempt('read the keys', () => keys.findByName(name));
      if (taken && !values.replace) {
        fail(
          `A key named "${name}" exists already (id ${taken.id}, created ${taken.createdAt}${taken.revokedAt ? `, revoked ${taken.revokedAt}` : ''}). ` +
            `Choose another --name, or make a new key under this name with --replace (the old key is revoked).`,
          false,
        );
      }
      const key = generateApiKey();
      const record: NewKey = {
        name,
        plan,
        keyHash: hashApiKey(key),
        createdAt: now.toISOString(),
        monthlyQuota: quota,
        ratePerSecond: rate,
        scopes: scopes.join(' '),
        origin: 'cli',
        streams,
      };
      const made = await attempt('create the key', () => (taken ? keys.replace(record, now.toISOString(), taken) : keys.createNamed(record)));
      if (made === 'taken')
        fail(
          `Nothing was changed: another command made a key named "${name}" meanwhile; \`npm run keys -- list\` shows it (--replace makes a new one under the name).`,
          false,
        );
      if (made === 'stale')
        fail(
          `Nothing was changed: another command replaced or revoked the key named "${name}" (id ${taken!.id}) meanwhile; \`npm run keys -- list\` shows it.`,
          false,
        );
      if (made === 'duplicate') fail('Could not create the key: another key has the same secret (try again).', false);
      if (taken) {
        // As the store named it (replacedName, or the next free name after it).
        const renamed = (await attempt('read the keys', () => keys.list(monthOf(now)))).find((k) => k.id === taken.id)?.name ?? replacedName(name, taken.id);
        io.out(`revoked the earlier key "${name}" (id ${taken.id}); it is listed as ${shownName(renamed)}`);
      }
      io.out(
        `created key "${name}" (plan ${plan}, ${quota} requests/month, ${rate}/s${streams === null ? '' : `, ${streams} streams`}${scopes.length ? `, scopes: ${scopes.join(' ')}` : ''})`,
      );
      io.out(`\n  ${key}\n\nStore it now: it is not shown again. Send it as the x-api-key header.`);
      break;
    }
    case 'list': {
      const rows = await attempt('list the keys', () => keys.list(monthOf(now)));
      if (rows.length === 0) io.out('no keys');
      for (const k of rows) {
        const state = !k.revokedAt
          ? 'active'
          : k.revokedBy === 'environment'
            ? `retired ${k.revokedAt} (no server's environment named it)`
            : `revoked ${k.revokedAt}`;
        const origin = k.origin === 'env' ? '  from API_KEYS' : k.origin === 'first-key' ? '  made at first start' : '';
        // Escaped: a name or plan from before they were checked may hold what a terminal acts on.
        io.out(
          `${String(k.id).padStart(4)}  ${escaped(k.name).padEnd(24)} ${escaped(k.plan).padEnd(12)} ${String(k.requests).padStart(8)}/${k.monthlyQuota} this month  ${k.ratePerSecond}/s  ${k.streams === null ? '' : `${k.streams} streams  `}${state}  ${k.scopes ? `scopes: ${k.scopes}  ` : ''}created ${k.createdAt}${origin}`,
        );
      }
      break;
    }
    case 'revoke': {
      const refs = positionals.slice(1).map((ref) => ref.normalize('NFC'));
      if (refs.length === 0) fail(values.id ? 'revoke --id needs one or more key ids' : 'revoke needs one or more key names (or --id and key ids)');
      const all = await attempt('read the keys', () => keys.list(monthOf(now)));
      const revocation = revocationOf(refs, values.id ?? false, all);
      if (!revocation.ok)
        fail(`Nothing was revoked:\n${revocation.problems.map((p) => `  ${p}`).join('\n')}\n\`npm run keys -- list\` shows every key.`, false);
      const stale = await attempt('revoke the keys', () => keys.revoke(revocation.keys, now.toISOString()));
      // Another command revoked or replaced one of them since they were read: all or nothing still.
      if (stale.length > 0)
        fail(
          `Nothing was revoked:\n${stale.map((k) => `  key ${shownName(k.name)} (id ${k.id}) was revoked or replaced by another command meanwhile`).join('\n')}\n\`npm run keys -- list\` shows every key.`,
          false,
        );
      for (const k of revocation.keys) {
        io.out(`revoked key ${shownName(k.name)} (id ${k.id})`);
        // It stays revoked (the server does not bring it back), but the variable still names it.
        if (k.origin === 'env') io.out('  it comes from API_KEYS or API_ADMIN_KEYS: it stays revoked; remove it from there too');
      }
      break;
    }
  }
  await close();
}
