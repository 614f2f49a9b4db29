import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { ensureDatabase } from '../db/build.js';
import { openDatabase } from '../db/open.js';
import { KeyRepository, type ApiKeyRecord, type NewKey } from '../repositories/keys.js';
import { connectRedis, waitUntilUp } from '../cluster/redis.js';
import { clockFrom } from '../clock.js';
import { RedisKeyStore } from '../cluster/redis-keys.js';
import { createLogger } from '../logger.js';
import { generateApiKey, hashApiKey } from '../auth/api-key.js';
import { monthOf } from '../auth/guard.js';
import { KNOWN_SCOPES } from '../auth/scopes.js';

const USAGE = `npm run keys -- <command>

  create --name NAME [--plan free] [--quota 10000] [--rate 25] [--scope admin]
         prints the new key once; only its SHA-256 is stored. --scope admin may start sync runs
  list   every key with its plan, limits, state and this month's requests
  revoke NAME|ID`;

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
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
        scope: { type: 'string', multiple: true, default: [] },
      },
    });
  } catch (err) {
    return fail((err as Error).message);
  }
}

const { positionals, values } = parse();

const config = loadConfig();
// The server's clock (CLOCK_START too): the month whose usage is listed is the server's month.
const now = clockFrom(config.clockStart)();

/** Where keys live: the SQLite file, or Redis when REDIS_URL is set (replicas share them there). */
interface KeyStore {
  create(key: NewKey): boolean | Promise<boolean>;
  list(month: string): (ApiKeyRecord & { requests: number })[] | Promise<(ApiKeyRecord & { requests: number })[]>;
  revoke(ref: string, at: string): boolean | Promise<boolean>;
}
let keys: KeyStore;
let close: () => Promise<void> | void;
if (config.redis) {
  const link = connectRedis(config.redis.url, createLogger('warn'));
  if (!(await waitUntilUp(link, 5000))) {
    await link.close();
    fail(`redis at REDIS_URL is unreachable`);
  }
  keys = new RedisKeyStore(link);
  close = () => link.close();
} else {
  ensureDatabase(config.dbPath);
  const db = openDatabase(config.dbPath);
  keys = new KeyRepository(db);
  close = () => void db.close();
}

switch (positionals[0]) {
  case 'create': {
    if (!values.name) fail('create needs --name');
    const quota = Number(values.quota);
    const rate = Number(values.rate);
    if (!Number.isInteger(quota) || quota < 0) fail('--quota must be a whole number >= 0');
    if (!Number.isInteger(rate) || rate < 1) fail('--rate must be a whole number >= 1');
    const scopes = values.scope ?? [];
    for (const s of scopes) if (!KNOWN_SCOPES.includes(s)) fail(`unknown scope ${s}; known: ${KNOWN_SCOPES.join(', ')}`);
    const key = generateApiKey();
    try {
      await keys.create({ name: values.name, plan: values.plan!, keyHash: hashApiKey(key), createdAt: now.toISOString(), monthlyQuota: quota, ratePerSecond: rate, scopes: scopes.join(' ') });
    } catch (err) {
      fail(`could not create the key: ${(err as Error).message}`);
    }
    console.log(`created key "${values.name}" (plan ${values.plan}, ${quota} requests/month, ${rate}/s${scopes.length ? `, scopes: ${scopes.join(' ')}` : ''})`);
    console.log(`\n  ${key}\n\nStore it now: it is not shown again. Send it as the x-api-key header.`);
    break;
  }
  case 'list': {
    const rows = await keys.list(monthOf(now));
    if (rows.length === 0) console.log('no keys');
    for (const k of rows) {
      const state = k.revokedAt ? `revoked ${k.revokedAt}` : 'active';
      console.log(`${String(k.id).padStart(4)}  ${k.name.padEnd(24)} ${k.plan.padEnd(12)} ${String(k.requests).padStart(8)}/${k.monthlyQuota} this month  ${k.ratePerSecond}/s  ${state}  ${k.scopes ? `scopes: ${k.scopes}  ` : ''}created ${k.createdAt}`);
    }
    break;
  }
  case 'revoke': {
    const ref = positionals[1];
    if (!ref) fail('revoke needs a key name or id');
    if (!(await keys.revoke(ref, now.toISOString()))) fail(`no active key named or numbered ${ref}`);
    console.log(`revoked ${ref}`);
    break;
  }
  default:
    fail(positionals[0] ? `unknown command ${positionals[0]}` : 'a command is needed');
}
await close();
