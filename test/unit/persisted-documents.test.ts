import { createHash } from 'node:crypto';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_CACHED_DOCUMENT_CHARS } from '../../src/operation/steps/parse.js';
import { loadManifest, PersistedDocuments } from '../../src/operation/persisted-documents.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const apq = (text: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(text) } });
/** Registers a text as a client would, and stores it as the handler does once it has validated. */
const register = (docs: PersistedDocuments, text: string) => {
  const r = docs.resolve({ query: text, extensions: apq(text) });
  if ('error' in r) throw r.error;
  r.store?.();
};
const found = (docs: PersistedDocuments, text: string) => !('error' in docs.resolve({ extensions: apq(text) }));

describe('persisted documents', () => {
  it('the automatic store is bounded in bytes: the least recently used go first', () => {
    const docs = new PersistedDocuments({ maxBytes: 10_000 });
    const texts = Array.from({ length: 40 }, (_, i) => `{ zip(zip: "${String(i).padStart(5, '0')}") { city } }${' '.repeat(400)}`);
    for (const t of texts) register(docs, t);
    // About 500 bytes each: some 20 fit, the newest.
    expect(docs.stored).toBeLessThanOrEqual(20);
    expect(docs.stored).toBeGreaterThanOrEqual(15);
    expect(found(docs, texts[39]!)).toBe(true);
    expect(found(docs, texts[0]!)).toBe(false);
  });

  it('a document longer than the parse cache keeps is run but not stored', () => {
    const docs = new PersistedDocuments();
    const long = `{ __typename }${' '.repeat(MAX_CACHED_DOCUMENT_CHARS)}`;
    register(docs, long);
    expect(found(docs, long)).toBe(false);
    register(docs, '{ __typename }');
    expect(found(docs, '{ __typename }')).toBe(true);
  });

  it('nothing is stored before the caller says the document validated', () => {
    const docs = new PersistedDocuments();
    const r = docs.resolve({ query: '{ x }', extensions: apq('{ x }') });
    expect('text' in r && r.text).toBe('{ x }');
    expect(found(docs, '{ x }')).toBe(false);
  });

  it('a request with neither text, hash nor id is "Must provide query string."; a query that is not a string is refused', () => {
    const docs = new PersistedDocuments();
    expect(docs.resolve({})).toMatchObject({ error: { message: 'Must provide query string.' } });
    expect(docs.resolve({ query: 5 })).toMatchObject({ error: { message: 'query must be a string.' } });
    expect(docs.resolve({ documentId: 5 })).toMatchObject({ error: { message: 'documentId must be a string.' } });
    expect(docs.resolve({ extensions: [] })).toMatchObject({ error: { message: 'extensions must be an object.' } });
  });

  it('a manifest is a JSON object of hash → text; anything else stops the start naming the file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-'));
    const good = path.join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ abc: '{ __typename }', 'sha256:def': '{ health { status } }' }));
    // codegen's keys carry the algorithm; requests may name a document with or without it.
    expect([...loadManifest(good)]).toEqual([
      ['abc', '{ __typename }'],
      ['def', '{ health { status } }'],
    ]);
    const list = path.join(dir, 'list.json');
    writeFileSync(list, '["{ __typename }"]');
    expect(() => loadManifest(list)).toThrow(`GRAPHQL_TRUSTED_DOCUMENTS: ${list} must hold a JSON object of hash → document`);
    const notText = path.join(dir, 'not-text.json');
    writeFileSync(notText, '{"abc": 1}');
    expect(() => loadManifest(notText)).toThrow(/entry "abc" is not a document text/);
    expect(() => loadManifest(path.join(dir, 'missing.json'))).toThrow(/GRAPHQL_TRUSTED_DOCUMENTS: cannot read .*missing\.json as JSON/);
  });
});
