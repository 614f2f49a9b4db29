import type { ApiKeyRecord } from '../data/repositories/keys.js';
import { shownName } from '../auth/key-name.js';

/** What `keys revoke` is asked to do: the keys to revoke, or why nothing may be. */
export type Revocation = { ok: true; keys: ApiKeyRecord[] } | { ok: false; problems: string[] };

/**
 * The keys the arguments name: by name (`revoke NAME…`), or by id (`revoke --id N…`), never one
 * for the other — a key named "1" and the key whose id is 1 are two keys. All or nothing: an
 * argument that names no key, more than one, or one revoked already is a problem, and one problem
 * revokes nothing (the operator meant every key listed, not those that happened to match).
 */
export function revocationOf(args: readonly string[], byId: boolean, keys: readonly ApiKeyRecord[]): Revocation {
  const problems: string[] = [];
  const chosen = new Map<number, ApiKeyRecord>();
  for (const arg of new Set(args)) {
    if (byId && !/^[1-9]\d{0,15}$/.test(arg)) {
      problems.push(`--id takes key ids, the whole numbers \`list\` shows: ${shownName(arg)} is not one`);
      continue;
    }
    const matches = byId ? keys.filter((k) => k.id === Number(arg)) : keys.filter((k) => k.name === arg);
    if (matches.length === 0) {
      const asId = !byId && /^\d+$/.test(arg) && keys.some((k) => k.id === Number(arg));
      problems.push(
        byId ? `no key has id ${arg}` : `no key is named ${shownName(arg)}${asId ? ` (to revoke the key whose id is ${arg}: revoke --id ${arg})` : ''}`,
      );
      continue;
    }
    if (matches.length > 1) {
      // Names are unique in SQLite; in Redis two commands creating one name at once can both win.
      const ids = matches.map((k) => k.id).join(', ');
      problems.push(`${shownName(arg)} names ${matches.length} keys (ids ${ids}): revoke one by id (--id ${matches[0]!.id})`);
      continue;
    }
    const key = matches[0]!;
    if (key.revokedAt) {
      problems.push(`key ${shownName(key.name)} (id ${key.id}) was revoked already, at ${key.revokedAt}`);
      continue;
    }
    chosen.set(key.id, key);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, keys: [...chosen.values()] };
}
