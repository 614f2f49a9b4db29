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

describe('persisted documents: each refusal with its code', () => {
  it('request errors are BAD_REQUEST; a hash that does not match its text is PERSISTED_QUERY_HASH_MISMATCH', () => {
    const docs = new PersistedDocuments();
    const codeOf = (params: Parameters<PersistedDocuments['resolve']>[0]) => {
      const r = docs.resolve(params);
      return 'error' in r ? [r.error.message, r.error.extensions.code] : null;
    };
    expect(codeOf({ documentId: 5 })).toEqual(['documentId must be a string.', 'BAD_REQUEST']);
    expect(codeOf({ query: 5 })).toEqual(['query must be a string.', 'BAD_REQUEST']);
    expect(codeOf({ query: '{ x }', extensions: 'x' })).toEqual(['extensions must be an object.', 'BAD_REQUEST']);
    expect(codeOf({ query: '{ x }', extensions: [] })).toEqual(['extensions must be an object.', 'BAD_REQUEST']);
    expect(codeOf({ query: '{ x }', extensions: apq('{ y }') })).toEqual(['provided sha does not match query', 'PERSISTED_QUERY_HASH_MISMATCH']);
    // A null query or documentId, or extensions without a persisted query, are as good as absent.
    expect(codeOf({ query: null })).toEqual(['Must provide query string.', 'BAD_REQUEST']);
    expect(codeOf({ query: '{ x }', documentId: null, extensions: {} })).toBeNull();
    expect(codeOf({ query: '{ x }', extensions: null })).toBeNull();
  });

  it('a document of exactly the parse cache’s bound is stored', () => {
    const docs = new PersistedDocuments();
    const text = `{ __typename }${' '.repeat(MAX_CACHED_DOCUMENT_CHARS - '{ __typename }'.length)}`;
    expect(text).toHaveLength(MAX_CACHED_DOCUMENT_CHARS);
    register(docs, text);
    expect(found(docs, text)).toBe(true);
  });

  it('a manifest of a number, null, or an entry with an empty hash stops the start', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-'));
    for (const [name, content] of [
      ['number.json', '5'],
      ['null.json', 'null'],
    ]) {
      const file = path.join(dir, name!);
      writeFileSync(file, content!);
      expect(() => loadManifest(file)).toThrow(`GRAPHQL_TRUSTED_DOCUMENTS: ${file} must hold a JSON object of hash → document`);
    }
    const empty = path.join(dir, 'empty-hash.json');
    writeFileSync(empty, '{"": "{ __typename }"}');
    expect(() => loadManifest(empty)).toThrow(`GRAPHQL_TRUSTED_DOCUMENTS: ${empty}: entry "" is not a document text`);
  });
});
