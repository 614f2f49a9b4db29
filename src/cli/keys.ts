import { parseArgs } from 'node:util';
import { loadConfig } from '../lib/config.js';
import { ensureDatabase } from '../data/db/build.js';
import { SetupError } from '../lib/errors.js';
import { openDatabase } from '../data/db/open.js';
import { KeyRepository, type ApiKeyRecord, type NewKey } from '../data/repositories/keys.js';
import { connectRedis, waitUntilUp } from '../cluster/redis.js';
import { clockFrom } from '../lib/clock.js';
import { RedisKeyStore } from '../cluster/redis-keys.js';
import { createLogger } from '../lib/logger.js';
import { generateApiKey, hashApiKey } from '../auth/api-key.js';
import { monthOf } from '../auth/guard.js';
import { KNOWN_SCOPES } from '../auth/scopes.js';
import { escaped, keyTextProblem, shownName } from '../auth/key-name.js';
import { revocationOf } from './revoke-targets.js';

/** The most streams one key may be given (a frontend's key across all its browsers). */
const MAX_KEY_STREAMS = 1_000_000;

const USAGE = `npm run keys -- <command>

  create --name NAME [--plan free] [--quota 10000] [--rate 25] [--streams N] [--scope admin] [--replace]
         prints the new key once; only its SHA-256 is stored. NAME: printable characters, at
         most 100. --scope admin may start sync runs; --streams: subscriptions it may hold open
         at once (a frontend's key serves many browsers; STREAMS_PER_KEY when not given);
         --replace revokes the key that has the name and makes a new one under it
  list   every key with its id, plan, limits, state and this month's requests
  revoke NAME...      revokes the keys with these names
  revoke --id ID...   revokes the keys with these ids (as list shows them)
         all or nothing: a name or id that matches no active key, or more than one, revokes none

Replicas keep their keys in Redis: run it with their REDIS_URL.`;

/**
 * Every failure is a sentence and exit status 2, never a stack or a SQL error; what an argument
 * brought in is escaped, never printed for the terminal to act on.
 */
function fail(message: string, usage = true): never {
  const safe = message.split('\n').map(escaped).join('\n');
  console.error(usage ? `${safe}\n\n${USAGE}` : safe);
  process.exit(2);
}

function parse() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        plan: { type: 'string', default: 'free' },
        quota: { type: 'string', default: '10000' },
        rate: { type: 'string', default: '25' },
        streams: { type: 'string' },
        scope: { type: 'string', multiple: true, default: [] },
        replace: { type: 'boolean', default: false },
        id: { type: 'boolean', default: false },
      },
    });
  } catch (err) {
    return fail((err as Error).message);
  }
}

const { positionals, values } = parse();

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (err) {
  fail((err as Error).message, false);
}
// The server's clock (CLOCK_START too): the month whose usage is listed is the server's month.
const now = clockFrom(config.clockStart)();

/** Where keys live: the SQLite file, or Redis when REDIS_URL is set (replicas share them there). */
interface KeyStore {
  create(key: NewKey): boolean | Promise<boolean>;
  replace(key: NewKey, at: string): boolean | Promise<boolean>;
  findByName(name: string): ApiKeyRecord | undefined | Promise<ApiKeyRecord | undefined>;
  list(month: string): (ApiKeyRecord & { requests: number })[] | Promise<(ApiKeyRecord & { requests: number })[]>;
  revoke(keys: readonly ApiKeyRecord[], at: string): number | Promise<number>;
}
let keys: KeyStore;
let close: () => Promise<void> | void;
if (config.redis) {
  // Quiet: only what went wrong is said (the command's own sentences).
  const link = connectRedis(config.redis.url, createLogger('silent'));
  if (!(await waitUntilUp(link, 5000))) {
    await link.close();
    fail('Redis at REDIS_URL is unreachable: the replicas keep their keys there, so no key can be made or changed now.', false);
  }
  keys = new RedisKeyStore(link);
  close = () => link.close();
} else {
  try {
    ensureDatabase(config.dbPath);
  } catch (err) {
    if (err instanceof SetupError) fail(err.message, false);
    fail(`Cannot open the database ${config.dbPath}: ${(err as Error).message}`, false);
  }
  const db = openDatabase(config.dbPath);
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
}

/** A store's failure (Redis gone mid-command, a locked database) as a sentence. */
async function attempt<T>(what: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const reason = (err as { code?: string }).code === 'SQLITE_BUSY' ? 'the database is busy; try again in a moment' : (err as Error).message;
    return fail(`Could not ${what}: ${reason}.`, false);
  }
}

switch (positionals[0]) {
  case 'create': {
    const name = values.name?.trim();
    if (!name) fail('create needs --name');
    const textProblem = keyTextProblem('--name', name) ?? keyTextProblem('--plan', values.plan!);
    if (textProblem) fail(textProblem);
    const quota = Number(values.quota);
    const rate = Number(values.rate);
    if (!Number.isInteger(quota) || quota < 0) fail('--quota must be a whole number >= 0');
    if (!Number.isInteger(rate) || rate < 1) fail('--rate must be a whole number >= 1');
    const streams = values.streams === undefined ? null : Number(values.streams);
    if (streams !== null && (!Number.isInteger(streams) || streams < 1 || streams > MAX_KEY_STREAMS))
      fail(`--streams must be a whole number from 1 to ${MAX_KEY_STREAMS}`);
    const scopes = values.scope ?? [];
    for (const s of scopes) if (!KNOWN_SCOPES.includes(s)) fail(`unknown scope ${s}; known: ${KNOWN_SCOPES.join(', ')}`);
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
      plan: values.plan!,
      keyHash: hashApiKey(key),
      createdAt: now.toISOString(),
      monthlyQuota: quota,
      ratePerSecond: rate,
      scopes: scopes.join(' '),
      origin: 'cli',
      streams,
    };
    const made = await attempt('create the key', () => (taken ? keys.replace(record, now.toISOString()) : keys.create(record)));
    if (!made) fail('Could not create the key: another key has the same secret (try again).', false);
    if (taken) console.log(`revoked the earlier key "${name}" (id ${taken.id}); it is listed as "${name}~replaced-${taken.id}"`);
    console.log(
      `created key "${name}" (plan ${values.plan}, ${quota} requests/month, ${rate}/s${streams === null ? '' : `, ${streams} streams`}${scopes.length ? `, scopes: ${scopes.join(' ')}` : ''})`,
    );
    console.log(`\n  ${key}\n\nStore it now: it is not shown again. Send it as the x-api-key header.`);
    break;
  }
  case 'list': {
    const rows = await attempt('list the keys', () => keys.list(monthOf(now)));
    if (rows.length === 0) console.log('no keys');
    for (const k of rows) {
      const state = !k.revokedAt
        ? 'active'
        : k.revokedBy === 'environment'
          ? `retired ${k.revokedAt} (no server's environment named it)`
          : `revoked ${k.revokedAt}`;
      const origin = k.origin === 'env' ? '  from API_KEYS' : k.origin === 'first-key' ? '  made at first start' : '';
      // Escaped: a name or plan from before they were checked may hold what a terminal acts on.
      console.log(
        `${String(k.id).padStart(4)}  ${escaped(k.name).padEnd(24)} ${escaped(k.plan).padEnd(12)} ${String(k.requests).padStart(8)}/${k.monthlyQuota} this month  ${k.ratePerSecond}/s  ${k.streams === null ? '' : `${k.streams} streams  `}${state}  ${k.scopes ? `scopes: ${k.scopes}  ` : ''}created ${k.createdAt}${origin}`,
      );
    }
    break;
  }
  case 'revoke': {
    const refs = positionals.slice(1);
    if (refs.length === 0) fail(values.id ? 'revoke --id needs one or more key ids' : 'revoke needs one or more key names (or --id and key ids)');
    const all = await attempt('read the keys', () => keys.list(monthOf(now)));
    const revocation = revocationOf(refs, values.id!, all);
    if (!revocation.ok) fail(`Nothing was revoked:\n${revocation.problems.map((p) => `  ${p}`).join('\n')}\n\`npm run keys -- list\` shows every key.`, false);
    await attempt('revoke the keys', () => keys.revoke(revocation.keys, now.toISOString()));
    for (const k of revocation.keys) {
      console.log(`revoked key ${shownName(k.name)} (id ${k.id})`);
      // It stays revoked (the server does not bring it back), but the variable still names it.
      if (k.origin === 'env') console.log('  it comes from API_KEYS or API_ADMIN_KEYS: it stays revoked; remove it from there too');
    }
    break;
  }
  default:
    fail(positionals[0] ? `unknown command ${positionals[0]}` : 'a command is needed');
}
await close();
