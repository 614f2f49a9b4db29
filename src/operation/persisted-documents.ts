import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GraphQLError } from 'graphql';
import { LRUCache } from 'lru-cache';
import { MAX_CACHED_DOCUMENT_CHARS } from './steps/parse.js';
import type { Source } from './operation.js';
import { SetupError } from '../lib/errors.js';

/** Bytes of documents kept for automatic persisted queries (each at most MAX_CACHED_DOCUMENT_CHARS). */
export const APQ_STORE_BYTES = 8 * 1024 * 1024;

/** The parts of a GraphQL request that name its document. */
export interface DocumentParams {
  query?: unknown;
  documentId?: unknown;
  extensions?: unknown;
}

/**
 * A request's document (operation.ts's Source: its text, whether it is trusted, and its id, made
 * only when asked: only a GET's cache key needs it, and hashing every POST's text cost a
 * microsecond), or why there is none.
 */
export type ResolvedDocument = Source | { error: GraphQLError };

export interface PersistedDocumentsOptions {
  /** Trusted documents: hash → text, as codegen's client preset writes persisted-documents.json. */
  trusted?: ReadonlyMap<string, string>;
  /** Bytes of automatic persisted queries kept (APQ_STORE_BYTES). */
  maxBytes?: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const requestError = (message: string, code: string) => new GraphQLError(message, { extensions: { code } });

/**
 * Which document a request runs, however it names it:
 * - `query`: the text itself (trusted when it is one of the manifest's);
 * - `extensions.persistedQuery { version: 1, sha256Hash }` (Apollo's automatic persisted queries):
 *   the hash alone runs a document sent before with it (or a trusted one);
 *   `PersistedQueryNotFound` asks the client to send the text with the hash, which is checked
 *   against the text and kept in a store bounded in bytes, once the document has validated;
 * - `documentId` (the GraphQL-over-HTTP persisted documents proposal): a trusted document's hash,
 *   with or without its `sha256:` prefix.
 * The store is per process: a client that reaches another replica is asked for the text once more.
 * Whether an untrusted document may run is the trusted-only step's to say (steps/trusted-only.ts).
 */
export class PersistedDocuments {
  private readonly apq: LRUCache<string, string>;
  private readonly trusted: ReadonlyMap<string, string>;
  private readonly trustedIds = new Map<string, string>();

  constructor(options: PersistedDocumentsOptions = {}) {
    this.apq = new LRUCache({ maxSize: options.maxBytes ?? APQ_STORE_BYTES, sizeCalculation: (text, hash) => text.length + hash.length + 64 });
    this.trusted = options.trusted ?? new Map();
    for (const [id, text] of this.trusted) this.trustedIds.set(text, id);
  }

  /** How many documents the automatic store holds (for /metrics and tests). */
  get stored(): number {
    return this.apq.size;
  }

  resolve(params: DocumentParams): ResolvedDocument {
    const persisted = persistedQueryOf(params.extensions);
    if (persisted && 'error' in persisted) return persisted;
    if (params.documentId !== undefined && params.documentId !== null) {
      if (typeof params.documentId !== 'string') return { error: requestError('documentId must be a string.', 'BAD_REQUEST') };
      const id = params.documentId.startsWith('sha256:') ? params.documentId.slice(7) : params.documentId;
      return this.byHash(id);
    }
    const hash = persisted?.sha256Hash;
    if (typeof params.query === 'string') {
      const trustedId = this.trustedIds.get(params.query);
      if (trustedId !== undefined) return { text: params.query, id: () => trustedId, trusted: true };
      const text = params.query;
      if (hash === undefined) return { text, id: () => sha256(text), trusted: false };
      const id = sha256(text);
      if (hash !== id) return { error: requestError('provided sha does not match query', 'PERSISTED_QUERY_HASH_MISMATCH') };
      // Kept once the document has parsed and validated: the remember-persisted step stores it then.
      return { text, id: () => id, trusted: false, store: text.length <= MAX_CACHED_DOCUMENT_CHARS ? () => void this.apq.set(id, text) : undefined };
    }
    if (params.query !== undefined && params.query !== null) return { error: requestError('query must be a string.', 'BAD_REQUEST') };
    if (hash !== undefined) return this.byHash(hash);
    return { error: requestError('Must provide query string.', 'BAD_REQUEST') };
  }

  /** A trusted document by its id, or one the automatic store holds (not trusted). */
  private byHash(id: string): ResolvedDocument {
    const trusted = this.trusted.get(id);
    if (trusted !== undefined) return { text: trusted, id: () => id, trusted: true };
    const stored = this.apq.get(id);
    return stored === undefined ? { error: notFound() } : { text: stored, id: () => id, trusted: false };
  }
}

/** Apollo's and Yoga's word for "send the text": clients retry on this message or code. */
function notFound(): GraphQLError {
  return requestError('PersistedQueryNotFound', 'PERSISTED_QUERY_NOT_FOUND');
}

function persistedQueryOf(extensions: unknown): { sha256Hash: string } | { error: GraphQLError } | null {
  if (extensions === undefined || extensions === null) return null;
  if (typeof extensions !== 'object' || Array.isArray(extensions)) return { error: requestError('extensions must be an object.', 'BAD_REQUEST') };
  const pq = (extensions as Record<string, unknown>).persistedQuery;
  if (pq === undefined || pq === null) return null;
  const { version, sha256Hash } = pq as Record<string, unknown>;
  if (version !== 1)
    return { error: requestError('PersistedQueryNotSupported: only version 1 of persisted queries is supported.', 'PERSISTED_QUERY_NOT_SUPPORTED') };
  if (typeof sha256Hash !== 'string' || !/^[0-9a-f]{64}$/.test(sha256Hash))
    return { error: requestError('persistedQuery.sha256Hash must be 64 lowercase hex digits.', 'BAD_REQUEST') };
  return { sha256Hash };
}

/**
 * A trusted documents manifest: a JSON object of hash → document text, as codegen's client preset
 * writes it (`persisted-documents.json`, keys "sha256:<hex>" or plain). A bad file stops the
 * start, naming the file.
 */
export function loadManifest(file: string): Map<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new SetupError(`GRAPHQL_TRUSTED_DOCUMENTS: cannot read ${file} as JSON (${(err as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new SetupError(`GRAPHQL_TRUSTED_DOCUMENTS: ${file} must hold a JSON object of hash → document`);
  const out = new Map<string, string>();
  for (const [hash, text] of Object.entries(parsed)) {
    if (typeof text !== 'string' || hash.length === 0)
      throw new SetupError(`GRAPHQL_TRUSTED_DOCUMENTS: ${file}: entry ${JSON.stringify(hash)} is not a document text`);
    // codegen writes "sha256:<hex>"; a request may name it with or without the prefix.
    out.set(hash.startsWith('sha256:') ? hash.slice(7) : hash, text);
  }
  return out;
}
