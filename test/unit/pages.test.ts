import { describe, expect, it } from 'vitest';
import { keyHint } from '../../src/http/pages.js';

describe('what the pages say about keys', () => {
  it('is true in each way the server can be started', () => {
    expect(keyHint({ auth: false, apiKeys: [] })).toMatch(/AUTH=off.*not checked/);
    expect(keyHint({ auth: false, apiKeys: ['k'] })).toMatch(/AUTH=off.*not checked/);
    const fromEnv = keyHint({ auth: true, apiKeys: ['k'] });
    expect(fromEnv).toMatch(/set by its operator \(<code>API_KEYS<\/code>\)/);
    expect(fromEnv).not.toMatch(/printed/);
    expect(keyHint({ auth: true, apiKeys: [] })).toMatch(
      /first time the server started it printed a first key on its terminal \(stderr\) and wrote it to first-api-key.txt beside its database/,
    );
    for (const hint of [fromEnv, keyHint({ auth: true, apiKeys: [] })]) expect(hint).toContain('npm run keys -- create --name me');
  });
});
