import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { GraphQLError, parse, type ExecutionResult } from 'graphql';
import { withTracing } from './tracing.js';
import { TRANSPORTS, type Operation, type OperationRequest, type Outcome, type Transport } from '../../src/operation/operation.js';
import { checkDocument, newOperation } from '../../src/operation/pipeline.js';
import { PersistedDocuments } from '../../src/operation/persisted-documents.js';
import { MAX_CACHED_DOCUMENT_CHARS } from '../../src/operation/steps/parse.js';
import { specErrors } from '../../src/operation/steps/validate.js';
import { INTROSPECTION_COSTS } from '../../src/operation/steps/introspection-cost.js';
import { QUERY_LIMITS } from '../../src/operation/steps/limits.js';
import { MAX_REPEATED_FIELD_PAIRS } from '../../src/operation/steps/repeated-fields.js';
import { COST_LIMITS, INCREMENTAL_COST_FACTOR, MAX_MEMO_KEY_CHARS, MAX_VARIABLE_ERRORS } from '../../src/operation/steps/cost.js';
import { UNEXPECTED_MESSAGE } from '../../src/operation/steps/finalize.js';
import { checkedOnce } from '../../src/operation/steps/validation-memo.js';
import { mayDisableLeafSerialization } from '../../src/operation/leaf-serialization.js';
import { mapParts } from '../../src/operation/map-parts.js';
import { cutAtDeadline, type IncrementalPart } from '../../src/operation/incremental.js';
import { schema } from '../../src/graphql/schema.js';
import { bounded, makeWorld, refusal, result, sharedServices, worldOver, type World } from './pipeline-world.js';

/**
 * Each rule of the one pipeline every GraphQL operation runs through (operation/pipeline.ts), on
 * the pipeline as the server wires it: the real schema over a private copy of the run's database,
 * on a fixed clock, and transports of the test's own (the decoded request, as an adapter hands it).
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** A transport that can carry a stream (SSE's abilities), and one that cannot (a JSON answer). */
const STREAMS: Transport = { name: 'sse', streams: true };
const JSON_ONLY: Transport = { name: 'json', streams: false };

const ZIP_STATS = '{ zipStats { totalZips } }';
const TOTAL_ZIPS = { zipStats: { totalZips: 40977 } };

/** An operation as the pipeline makes one, for a step run alone. */
function operation(w: World, request: OperationRequest, fields: Partial<Operation> = {}): Operation {
  return { ...newOperation(request, JSON_ONLY, w.context()), ...fields };
}

const stepOf = (w: World, name: string) => {
  const step = w.pipeline.steps.find((s) => s.name === name);
  if (!step) throw new Error(`no step ${name}`);
  return step;
};

/** Every part of a stream (bounded: a stream that never ends fails the test). */
const allParts = <T>(parts: AsyncIterable<T>): Promise<T[]> =>
  bounded(
    (async () => {
      const out: T[] = [];
      for await (const part of parts) out.push(part);
      return out;
    })(),
  );

/** The one error of a refusal, as a client reads it. */
const only = (outcome: Outcome) => {
  const r = refusal(outcome);
  expect(r.errors).toHaveLength(1);
  return r.errors[0]!;
};

describe('the pipeline, as the server wires it', () => {
  let w: World;
  const services = sharedServices('gateway-pipeline-');
  beforeEach(() => {
    w = worldOver(services());
  });
  const run = (request: OperationRequest, transport: Transport = JSON_ONLY, context = w.context()) =>
    Promise.resolve(w.pipeline.run(request, transport, context));

  it('runs its steps in this order, the optional ones left out by default', () => {
    expect(w.pipeline.steps.map((s) => s.name)).toEqual([
      'finalize',
      'csrf',
      'resolve-document',
      'parse',
      'limits',
      'validate',
      'remember-persisted',
      'select-operation',
      'response-cache',
      'cost',
      'budget',
      'execute',
    ]);
    // The rules a document of the server's own passes by construction.
    expect(w.pipeline.steps.filter((s) => s.passedByOwn).map((s) => s.name)).toEqual(['csrf', 'parse', 'limits', 'validate', 'remember-persisted']);
  });

  it('answers a query with its data, its cost and the request id', async () => {
    const ctx = w.context();
    const outcome = await run({ query: ZIP_STATS }, JSON_ONLY, ctx);
    expect(outcome).toEqual({ kind: 'result', result: { data: TOTAL_ZIPS, extensions: { cost: { requestedQueryCost: 2 }, requestId: ctx.requestId } } });
    expect(ctx.cost).toBe(2);
  });

  describe('csrf', () => {
    const message = 'A GET to /graphql must carry an x-api-key, authorization or x-graphql-yoga-csrf header (cross-site request forgery protection).';
    it('refuses a GET without a header a cross-site page cannot send (403 FORBIDDEN), before anything is read', async () => {
      const outcome = refusal(await run({ query: '{ not a document', overGet: true }));
      expect(outcome.status).toBe(403);
      expect(outcome.jsonStatus).toBe(403);
      expect(outcome.errors.map((e) => [e.message, e.extensions])).toEqual([[message, { code: 'FORBIDDEN' }]]);
    });

    it('lets a GET with such a header, and a POST without one, run', async () => {
      expect(result(await run({ query: ZIP_STATS, overGet: true, crossSiteSafe: true })).data).toEqual(TOTAL_ZIPS);
      expect(result(await run({ query: ZIP_STATS })).data).toEqual(TOTAL_ZIPS);
    });

    it("passes the server's own documents (a REST route's GET)", async () => {
      expect(result(await run({ own: parse(ZIP_STATS), overGet: true })).data).toEqual(TOTAL_ZIPS);
    });
  });

  describe('resolve-document', () => {
    it('an unknown hash asks for the text: PERSISTED_QUERY_NOT_FOUND, 200 to a plain JSON client, 400 otherwise', async () => {
      const outcome = refusal(await run({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ unknown }') } } }));
      expect([outcome.status, outcome.jsonStatus]).toEqual([400, 200]);
      expect(outcome.errors.map((e) => [e.message, e.extensions.code])).toEqual([['PersistedQueryNotFound', 'PERSISTED_QUERY_NOT_FOUND']]);
    });

    it('any other request error is a 400 to every client', async () => {
      const none = refusal(await run({}));
      expect([none.status, none.jsonStatus]).toEqual([400, 400]);
      expect(none.errors.map((e) => [e.message, e.extensions.code])).toEqual([['Must provide query string.', 'BAD_REQUEST']]);
      const mismatch = refusal(await run({ query: ZIP_STATS, extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ other }') } } }));
      expect([mismatch.status, mismatch.jsonStatus]).toEqual([400, 400]);
      expect(mismatch.errors[0]!.extensions.code).toBe('PERSISTED_QUERY_HASH_MISMATCH');
    });

    it('an automatic persisted query is kept once it has validated, then runs by its hash alone', async () => {
      const text = '{ zipStats { totalZips } } # apq';
      const extensions = { persistedQuery: { version: 1, sha256Hash: sha256(text) } };
      expect(result(await run({ query: text, extensions })).data).toEqual(TOTAL_ZIPS);
      expect(result(await run({ extensions })).data).toEqual(TOTAL_ZIPS);
    });

    it('one that fails validation is not kept', async () => {
      const text = '{ zipStats { nope } }';
      const extensions = { persistedQuery: { version: 1, sha256Hash: sha256(text) } };
      expect(only(await run({ query: text, extensions })).extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(only(await run({ extensions })).extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    });

    it("a document of the server's own is trusted, checked already, and has no text or id", () => {
      const own = parse(ZIP_STATS);
      const op = operation(w, { own });
      expect(stepOf(w, 'resolve-document').run!(op)).toBeUndefined();
      expect(op.document).toBe(own);
      expect(op.checked).toBe(true);
      expect([op.source!.text, op.source!.id(), op.source!.trusted]).toEqual(['', '', true]);
    });

    it('an automatic persisted query must be version 1 with a SHA-256 in lowercase hex', async () => {
      const refused = async (persistedQuery: unknown) => only(await run({ query: ZIP_STATS, extensions: { persistedQuery } }));
      expect(await refused({ version: 2, sha256Hash: sha256(ZIP_STATS) })).toMatchObject({
        message: 'PersistedQueryNotSupported: only version 1 of persisted queries is supported.',
        extensions: { code: 'PERSISTED_QUERY_NOT_SUPPORTED' },
      });
      for (const sha256Hash of [sha256(ZIP_STATS).toUpperCase(), `${sha256(ZIP_STATS)}0`, `x${sha256(ZIP_STATS)}`, sha256(ZIP_STATS).slice(1), 5]) {
        expect(await refused({ version: 1, sha256Hash })).toMatchObject({
          message: 'persistedQuery.sha256Hash must be 64 lowercase hex digits.',
          extensions: { code: 'BAD_REQUEST' },
        });
      }
      // Other extensions, or a null one, leave the text to run.
      expect(result(await run({ query: ZIP_STATS, extensions: { persistedQuery: null, other: 1 } })).data).toEqual(TOTAL_ZIPS);
      expect(result(await run({ query: ZIP_STATS, extensions: null, documentId: null })).data).toEqual(TOTAL_ZIPS);
    });

    it('a documentId names only a trusted document (or one the automatic store holds)', async () => {
      expect(only(await run({ documentId: sha256(ZIP_STATS) })).extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      expect(only(await run({ documentId: `sha256:${sha256(ZIP_STATS)}` })).extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      const text = '{ zipStats { totalZips } } # by id';
      await run({ query: text, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(text) } } });
      expect(result(await run({ documentId: `sha256:${sha256(text)}` })).data).toEqual(TOTAL_ZIPS);
      const docs = new PersistedDocuments({ trusted: new Map([['abc', ZIP_STATS]]) });
      const byId = docs.resolve({ documentId: 'sha256:abc' });
      const byText = docs.resolve({ query: ZIP_STATS });
      const stored = docs.resolve({ documentId: sha256(text) });
      expect('text' in byId && [byId.text, byId.id(), byId.trusted]).toEqual([ZIP_STATS, 'abc', true]);
      expect('text' in byText && [byText.text, byText.id(), byText.trusted, byText.store]).toEqual([ZIP_STATS, 'abc', true, undefined]);
      expect(stored).toMatchObject({ error: { extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } } });
      const apqText = '{ __typename }';
      const sent = docs.resolve({ query: apqText, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(apqText) } } });
      expect('text' in sent && [sent.id(), sent.trusted]).toEqual([sha256(apqText), false]);
      if ('text' in sent) sent.store!();
      const again = docs.resolve({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(apqText) } } });
      expect('text' in again && [again.text, again.id(), again.trusted]).toEqual([apqText, sha256(apqText), false]);
    });

    it('a text is found as it is: untrusted, its id its SHA-256', () => {
      const op = operation(w, { query: ZIP_STATS });
      expect(stepOf(w, 'resolve-document').run!(op)).toBeUndefined();
      expect(op.checked).toBe(false);
      expect(op.document).toBeUndefined();
      expect([op.source!.text, op.source!.id(), op.source!.trusted]).toEqual([ZIP_STATS, sha256(ZIP_STATS), false]);
    });
  });

  describe('parse', () => {
    it('a syntax error is GRAPHQL_PARSE_FAILED with where it is (400; 200 to a plain JSON client)', async () => {
      const outcome = refusal(await run({ query: '{ a' }));
      expect([outcome.status, outcome.jsonStatus]).toEqual([400, 200]);
      expect(outcome.errors.map((e) => [e.message, e.locations, e.extensions])).toEqual([
        ['Syntax Error: Expected Name, found <EOF>.', [{ line: 1, column: 4 }], { code: 'GRAPHQL_PARSE_FAILED' }],
      ]);
    });

    it(`a document of more than ${QUERY_LIMITS.maxTokens} tokens is refused while it is read`, async () => {
      // Each field is a token, with the braces: 2 + n. At the bound it parses, and the limits refuse
      // one field repeated that often (repeated-fields.ts), with @defer or @stream as without.
      const at = `{ ${'__typename '.repeat(QUERY_LIMITS.maxTokens - 2)}}`;
      const over = `{ ${'__typename '.repeat(QUERY_LIMITS.maxTokens - 1)}}`;
      expect(only(await run({ query: at }))).toMatchObject({
        message: expect.stringMatching(/^Too many repeated fields to check/),
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      });
      const deferred = `{ ... @defer { ${'__typename '.repeat(QUERY_LIMITS.maxTokens - 7)}} }`;
      expect(only(await run({ query: deferred }))).toEqual(only(await run({ query: at })));
      const streamed = `{ states @stream { ${'__typename '.repeat(QUERY_LIMITS.maxTokens - 7)}} }`;
      expect(only(await run({ query: streamed }))).toEqual(only(await run({ query: at })));
      expect(only(await run({ query: over }))).toMatchObject({
        message: `Syntax Error: Token limit of ${QUERY_LIMITS.maxTokens} exceeded.`,
        extensions: { code: 'GRAPHQL_PARSE_FAILED' },
      });
    });

    it('the same text gets the same document, and the same refusal; a document kept is announced to the compiler', () => {
      const parseStep = stepOf(w, 'parse');
      const text = '{ zipStats { totalZips } } # parse-cache';
      const source = { text, id: () => '', trusted: false };
      const first = operation(w, { query: text }, { source });
      const second = operation(w, { query: text }, { source });
      expect(parseStep.run!(first)).toBeUndefined();
      expect(parseStep.run!(second)).toBeUndefined();
      expect(first.document).toBeDefined();
      expect(second.document).toBe(first.document);
      const bad = { text: '{ b', id: () => '', trusted: false };
      const refused = parseStep.run!(operation(w, { query: '{ b' }, { source: bad }));
      expect(refused).toMatchObject({ kind: 'refused', errors: [{ message: 'Syntax Error: Expected Name, found <EOF>.' }] });
      expect(parseStep.run!(operation(w, { query: '{ b' }, { source: bad }))).toBe(refused);
    });

    it(`a text longer than ${MAX_CACHED_DOCUMENT_CHARS} characters is parsed each time, its refusal too`, () => {
      const parseStep = stepOf(w, 'parse');
      const text = `${ZIP_STATS}${' '.repeat(MAX_CACHED_DOCUMENT_CHARS)}`;
      const source = { text, id: () => '', trusted: false };
      const first = operation(w, {}, { source });
      const second = operation(w, {}, { source });
      parseStep.run!(first);
      parseStep.run!(second);
      expect(first.document).toBeDefined();
      expect(second.document).not.toBe(first.document);
      // Exactly at the bound: still kept.
      const atBound = { text: `${ZIP_STATS}${' '.repeat(MAX_CACHED_DOCUMENT_CHARS - ZIP_STATS.length)}`, id: () => '', trusted: false };
      const a = operation(w, {}, { source: atBound });
      const b = operation(w, {}, { source: atBound });
      parseStep.run!(a);
      parseStep.run!(b);
      expect(b.document).toBe(a.document);
      const badAtBound = { text: `{ b${' '.repeat(MAX_CACHED_DOCUMENT_CHARS - 3)}`, id: () => '', trusted: false };
      expect(badAtBound.text).toHaveLength(MAX_CACHED_DOCUMENT_CHARS);
      const k1 = parseStep.run!(operation(w, {}, { source: badAtBound }));
      expect(parseStep.run!(operation(w, {}, { source: badAtBound }))).toBe(k1);
      const badText = `{ b${' '.repeat(MAX_CACHED_DOCUMENT_CHARS)}`;
      const bad = { text: badText, id: () => '', trusted: false };
      const r1 = parseStep.run!(operation(w, {}, { source: bad }));
      const r2 = parseStep.run!(operation(w, {}, { source: bad }));
      expect(r1).toMatchObject({ kind: 'refused', errors: [{ extensions: { code: 'GRAPHQL_PARSE_FAILED' } }] });
      expect(r2).not.toBe(r1);
      expect(r2).toEqual(r1);
    });

    it('a document found already (a REST route’s own) is not parsed again', () => {
      const own = parse(ZIP_STATS);
      const op = operation(w, {}, { document: own, source: { text: '{ b', id: () => '', trusted: true } });
      expect(stepOf(w, 'parse').run!(op)).toBeUndefined();
      expect(op.document).toBe(own);
    });
  });

  describe('limits', () => {
    /** A query nested `depth` fields deep (zip → state → zipcodes → state …). */
    const nested = (depth: number) => {
      let body = 'zip';
      for (let i = 2; i < depth; i += 2) body = `state { zipcodes { ${body} } }`;
      return depth % 2 === 0 ? `{ zip(zip: "80202") { state { zipcodes { ${body} } } } }` : `{ zip(zip: "80202") { ${body} } }`;
    };

    it(`a document deeper than ${QUERY_LIMITS.maxDepth} is refused before the schema's rules walk it`, async () => {
      const e = only(await run({ query: `{ zip(zip: "80202") { ${'state { zipcodes { '.repeat(6)}zip${' } }'.repeat(6)} } }` }));
      expect(e.message).toBe(`Syntax Error: Query depth limit of ${QUERY_LIMITS.maxDepth} exceeded, found ${QUERY_LIMITS.maxDepth + 2}.`);
      expect(e.extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED' });
      void nested;
    });

    it(`more than ${QUERY_LIMITS.maxAliases} aliases are refused; that many run`, async () => {
      // __typename is not counted: aliases of a field are.
      const aliases = (n: number) => `{ t: __typename ${Array.from({ length: n }, (_, i) => `a${i}: zipStats { totalZips }`).join(' ')} }`;
      expect(Object.keys(result(await run({ query: aliases(QUERY_LIMITS.maxAliases) })).data!)).toHaveLength(QUERY_LIMITS.maxAliases + 1);
      const outcome = refusal(await run({ query: aliases(QUERY_LIMITS.maxAliases + 1) }));
      expect([outcome.status, outcome.jsonStatus]).toEqual([400, 200]);
      expect(outcome.errors.map((e) => [e.message, e.extensions])).toEqual([
        [`Syntax Error: Aliases limit of ${QUERY_LIMITS.maxAliases} exceeded, found ${QUERY_LIMITS.maxAliases + 1}.`, { code: 'GRAPHQL_VALIDATION_FAILED' }],
      ]);
    });

    it(`more than ${QUERY_LIMITS.maxDirectives} directives are refused`, async () => {
      const directives = (n: number) => `{ ${'... @include(if: true) { __typename } '.repeat(n)}}`;
      expect(result(await run({ query: directives(QUERY_LIMITS.maxDirectives) })).data).toEqual({ __typename: 'Query' });
      expect(only(await run({ query: directives(QUERY_LIMITS.maxDirectives + 1) })).message).toBe(
        `Syntax Error: Directives limit of ${QUERY_LIMITS.maxDirectives} exceeded, found ${QUERY_LIMITS.maxDirectives + 1}.`,
      );
    });

    it(`fields of one name repeated past ${MAX_REPEATED_FIELD_PAIRS} pairs in one set are refused; inline fragments merge in, a fragment once`, async () => {
      const repeated = (n: number) => '__typename '.repeat(n);
      // 70 × 70 = 4,900; 71 × 71 = 5,041.
      expect(result(await run({ query: `{ ${repeated(70)}}` })).data).toEqual({ __typename: 'Query' });
      expect(only(await run({ query: `{ ${repeated(71)}}` }))).toMatchObject({
        message: `Too many repeated fields to check: over ${MAX_REPEATED_FIELD_PAIRS} pairs of fields of one name in one selection set (the sum of each name's count squared). Ask for each field once.`,
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      });
      expect(only(await run({ query: `{ ... { __typename } ${repeated(70)}}` })).message).toMatch(/^Too many repeated fields/);
      const fragment = 'fragment F on Query { __typename }';
      expect(result(await run({ query: `{ ...F ...F ${repeated(69)}} ${fragment}` })).data).toEqual({ __typename: 'Query' });
      expect(only(await run({ query: `{ ...F ${repeated(70)}} ${fragment}` })).message).toMatch(/^Too many repeated fields/);
      // Every set counts: the sum over a field's own sets, each of 51 × 51 (nothing repeats across them).
      const sets = `{ a: zipStats { ${'totalZips '.repeat(51)}} b: zipStats { ${'totalZips '.repeat(51)}} }`;
      expect(only(await run({ query: sets })).message).toMatch(/^Too many repeated fields/);
    });

    it('a fragment that spreads itself is not followed round its cycle: validation refuses it', async () => {
      const cycle = '{ zip(zip: "80202") { ...A } } fragment A on Zip { state { zipcodes { ...A } } ...B } fragment B on Zip { ...A }';
      expect(refusal(await run({ query: cycle })).errors.map((e) => e.message)).toEqual(expect.arrayContaining(['Cannot spread fragment "A" within itself.']));
    });

    it('the limits are checked on every document the server is sent, and on none of its own', () => {
      const deep = parse(`{ zip(zip: "80202") { ${'state { zipcodes { '.repeat(6)}zip${' } }'.repeat(6)} } }`);
      expect(stepOf(w, 'limits').run!(operation(w, {}, { document: deep, checked: true }))).toBeUndefined();
      expect(stepOf(w, 'limits').run!(operation(w, {}, { document: deep }))).toMatchObject({ kind: 'refused', status: 400, jsonStatus: 200 });
    });
  });

  describe('validate', () => {
    it('with @defer or @stream too, GraphQL’s metered check of same-named fields: past its work, too large to check (the plugin’s copy is unmetered)', async () => {
      const repeated = '__typename '.repeat(1993);
      for (const text of [`{ ${repeated}}`, `{ ... @defer { ${repeated}} }`, `{ states @stream { ${repeated}} }`]) {
        const errors = await specErrors(schema, parse(text));
        expect(errors.map((e) => e.message)).toEqual([
          'The document is too large to check: GraphQL stops comparing fields of the same name (and following fragment spreads) past a fixed amount of work. Ask for each field once, with fewer repeated fields and fragment spreads.',
        ]);
      }
    });

    it("a document the schema does not allow is GRAPHQL_VALIDATION_FAILED, every error with GraphQL's message", async () => {
      const outcome = refusal(await run({ query: '{ zipStats { nope } zip { city } }' }));
      expect([outcome.status, outcome.jsonStatus]).toEqual([400, 200]);
      expect(outcome.errors.map((e) => [e.message, e.extensions])).toEqual([
        ['Cannot query field "nope" on type "ZipStats".', { code: 'GRAPHQL_VALIDATION_FAILED' }],
        ['Field "zip" argument "zip" of type "String!" is required, but it was not provided.', { code: 'GRAPHQL_VALIDATION_FAILED' }],
      ]);
    });

    it('past 100 errors GraphQL stops, and the last error says so with its bound', async () => {
      const fields = Array.from({ length: 101 }, (_, i) => `f${i}`);
      const outcome = refusal(await run({ query: `{ ${fields.join(' ')} }` }));
      expect(outcome.errors.map((e) => e.message)).toEqual([
        ...fields.slice(0, 100).map((f) => `Cannot query field "${f}" on type "Query".`),
        'More than 100 validation errors: the first 100 are listed, and validation stopped there.',
      ]);
      expect(outcome.errors.every((e) => e.extensions.code === 'GRAPHQL_VALIDATION_FAILED')).toBe(true);
    });

    it('with introspection on, "Did you mean" hints stay', async () => {
      expect(only(await run({ query: '{ zipp }' })).message).toBe('Cannot query field "zipp" on type "Query". Did you mean "zip" or "zips"?');
    });

    it('knows @defer and @stream, and their own rules (a label used twice)', async () => {
      expect(await checkDocument(schema, parse('{ ... @defer { zipStats { totalZips } } }'), true)).toEqual([]);
      const twice = '{ ... @defer(label: "a") { zipStats { totalZips } } ... @defer(label: "a") { zipStats { totalStates } } }';
      expect((await checkDocument(schema, parse(twice), true)).map((e) => e.message)).toEqual(['Defer/Stream directive label argument must be unique.']);
      // GraphQL's own rules judge it as well.
      expect((await checkDocument(schema, parse('{ ... @defer { nope } }'), true)).map((e) => e.message)).toEqual([
        'Cannot query field "nope" on type "Query".',
      ]);
      expect(only(await run({ query: twice }))).toMatchObject({
        message: 'Defer/Stream directive label argument must be unique.',
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      });
    });
  });

  describe('remember-persisted', () => {
    it('stores what the document names to store, and answers nothing', () => {
      let stored = 0;
      const op = operation(w, {}, { source: { text: '', id: () => '', trusted: false, store: () => void stored++ } });
      expect(stepOf(w, 'remember-persisted').run!(op)).toBeUndefined();
      expect(stored).toBe(1);
    });
  });

  describe('select-operation', () => {
    const TWO = 'query A { zipStats { totalZips } } query B { states { stateCode } }';
    const badRequest = async (request: OperationRequest, message: string, transport = JSON_ONLY) => {
      const outcome = refusal(await run(request, transport));
      expect([outcome.status, outcome.jsonStatus]).toEqual([400, 400]);
      expect(outcome.errors.map((e) => [e.message, e.extensions])).toEqual([[message, { code: 'BAD_REQUEST' }]]);
    };

    it('runs the operation named, or the only one', async () => {
      expect(result(await run({ query: TWO, operationName: 'A' })).data).toEqual(TOTAL_ZIPS);
      expect(result(await run({ query: TWO, operationName: 'B' })).data).toMatchObject({ states: expect.arrayContaining([{ stateCode: 'CO' }]) });
      expect(result(await run({ query: ZIP_STATS, operationName: null })).data).toEqual(TOTAL_ZIPS);
    });

    it('an operation name must be a string that names one; more than one operation need one', async () => {
      await badRequest({ query: TWO }, 'Must provide operation name if query contains multiple operations.');
      await badRequest({ query: TWO, operationName: null }, 'Must provide operation name if query contains multiple operations.');
      await badRequest({ query: TWO, operationName: 'C' }, 'Unknown operation named "C".');
      await badRequest({ query: ZIP_STATS, operationName: 'A' }, 'Unknown operation named "A".');
      await badRequest({ query: ZIP_STATS, operationName: 5 }, 'operationName must be a string.');
    });

    it('its refusals carry their own code (BAD_REQUEST), not only the one finalize gives an uncoded error', () => {
      const select = stepOf(w, 'select-operation');
      for (const request of [{ operationName: 5 }, { variables: [1] }, { operationName: 'X' }] as OperationRequest[]) {
        const outcome = select.run!(operation(w, request, { document: parse(ZIP_STATS) }));
        expect(outcome).toMatchObject({ kind: 'refused', status: 400, jsonStatus: 400 });
        expect(refusal(outcome as Outcome).errors[0]!.extensions).toEqual({ code: 'BAD_REQUEST' });
      }
    });

    it('variables must be a JSON object (or absent)', async () => {
      await badRequest({ query: ZIP_STATS, variables: [1] }, 'variables must be a JSON object.');
      await badRequest({ query: ZIP_STATS, variables: 'x' }, 'variables must be a JSON object.');
      expect(result(await run({ query: ZIP_STATS, variables: null })).data).toEqual(TOTAL_ZIPS);
      const op = operation(w, { query: ZIP_STATS, variables: null }, { document: parse(ZIP_STATS) });
      expect(stepOf(w, 'select-operation').run!(op)).toBeUndefined();
      expect(op.variables).toBeUndefined();
      expect(op.operationName).toBeUndefined();
      expect(op.definition!.selectionSet.selections).toHaveLength(1);
    });

    it('a mutation may not run over GET (405, Allow: POST), whatever the client accepts; over POST it runs', async () => {
      const mutation = 'mutation { runSync { state } }';
      const outcome = refusal(await run({ query: mutation, overGet: true, crossSiteSafe: true }));
      expect(outcome).toMatchObject({ status: 405, jsonStatus: 405, headers: ['allow', 'POST'] });
      expect(outcome.errors.map((e) => [e.message, e.extensions])).toEqual([
        ['Can only perform a mutation operation from a POST request.', { code: 'METHOD_NOT_ALLOWED' }],
      ]);
      // Over POST it runs: the resolver itself refuses a key without the admin scope.
      expect(result(await run({ query: mutation })).errors?.map((e) => e.extensions.code)).toEqual(['FORBIDDEN']);
      // A query over GET runs.
      expect(result(await run({ query: ZIP_STATS, overGet: true, crossSiteSafe: true })).data).toEqual(TOTAL_ZIPS);
    });

    it('a subscription needs a transport that streams (406 NOT_ACCEPTABLE otherwise)', async () => {
      const outcome = refusal(await run({ query: 'subscription { syncProgress { state } }' }, JSON_ONLY));
      expect([outcome.status, outcome.jsonStatus]).toEqual([406, 406]);
      expect(outcome.errors.map((e) => [e.message, e.extensions])).toEqual([
        [
          'A subscription is answered as a stream: send accept: text/event-stream (SSE) or multipart/mixed, or use the WebSocket at /graphql (graphql-transport-ws).',
          { code: 'NOT_ACCEPTABLE' },
        ],
      ]);
      const streamed = await run({ query: 'subscription { syncProgress { state } }' }, STREAMS);
      expect(streamed).toMatchObject({ kind: 'stream', incremental: false });
    });

    it('a query on a transport that streams is one result', async () => {
      expect(result(await run({ query: ZIP_STATS }, STREAMS)).data).toEqual(TOTAL_ZIPS);
    });
  });

  describe('introspection', () => {
    it('on: __schema and __type run', async () => {
      expect(result(await run({ query: '{ __schema { queryType { name } } }' })).data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    });
  });

  describe('response-cache', () => {
    /** A GET's request as the JSON transport makes it: kept under the transport's key, serialized by it. */
    const kept = (query: string, extra: Partial<OperationRequest> = {}) => {
      const calls: { data: unknown; cost: number }[] = [];
      const request: OperationRequest = {
        query,
        overGet: true,
        crossSiteSafe: true,
        keep: {
          key: `graphql\n${query.length}`,
          serialize: (data, cost) => {
            calls.push({ data, cost });
            return JSON.stringify({ data, cost });
          },
        },
        ...extra,
      };
      return { request, calls };
    };

    it('keeps an answer of data that stays between requests, then answers it from the cache (no cost charged)', async () => {
      const query = '{ zipStats { totalZips } } # kept';
      const { request, calls } = kept(query);
      const version = w.services.dataVersion.of('static');
      const key = `graphql\n${query.length}\n${sha256(query)}\n\n${version}`;
      const first = await run(request);
      expect(first).toMatchObject({
        kind: 'kept',
        key,
        answer: { body: JSON.stringify({ data: TOTAL_ZIPS, cost: 2 }) },
        cacheControl: 'private, max-age=86400, stale-while-revalidate=86400',
      });
      expect(calls).toEqual([{ data: TOTAL_ZIPS, cost: 2 }]);
      // The cache admits an answer asked for before: the second is stored, the third found.
      expect(w.cache.get(key)).toBeUndefined();
      await run(request);
      expect(calls).toHaveLength(2);
      expect(w.cache.get(key)?.body).toBe(JSON.stringify({ data: TOTAL_ZIPS, cost: 2 }));
      // A key whose budget is spent still gets it: a kept answer costs nothing.
      const ctx = w.context({ keyId: 9001, keyRate: 1 });
      const third = await run(request, JSON_ONLY, ctx);
      expect(third).toMatchObject({
        kind: 'kept',
        key,
        answer: { body: JSON.stringify({ data: TOTAL_ZIPS, cost: 2 }) },
        cacheControl: 'private, max-age=86400, stale-while-revalidate=86400',
      });
      expect(calls).toHaveLength(2);
      expect(ctx.cost).toBeUndefined();
    });

    it('the key names the operation', async () => {
      const query = 'query A { zipStats { totalZips } } query B { zipStats { totalStates } }';
      const a = await run(kept(query, { operationName: 'A' }).request);
      const b = await run(kept(query, { operationName: 'B' }).request);
      expect(a).toMatchObject({ kind: 'kept', key: expect.stringMatching(/\nA\n/) });
      expect(b).toMatchObject({ kind: 'kept', key: expect.stringMatching(/\nB\n/) });
      expect((b as { answer: { body: string } }).answer.body).toContain('totalStates');
    });

    it('resort answers are kept with the data version of the hour, until its end', async () => {
      const query = '{ resort(id: "vail") { name } }';
      const outcome = await run(kept(query).request);
      expect(outcome).toMatchObject({
        kind: 'kept',
        key: `graphql\n${query.length}\n${sha256(query)}\n\n${w.services.dataVersion.of('data')}`,
        // The run's clock is at noon: an hour to go.
        cacheControl: 'private, max-age=3600, stale-while-revalidate=60',
      });
    });

    it('does not keep an answer of data that changes between requests, one with errors, or one a POST asked for', async () => {
      const health = await run(kept('{ health { status } }').request);
      expect(health).toMatchObject({ kind: 'result', result: { data: { health: { status: 'ok' } } } });
      const failed = await run(kept('{ zip(zip: "00000") { city } }').request);
      expect(failed.kind).toBe('result');
      expect(result(failed).errors?.map((e) => e.extensions.code)).toEqual(['NOT_FOUND']);
      const posted = await run({ query: ZIP_STATS });
      expect(posted.kind).toBe('result');
    });

    it('an answer with no data (variables that do not coerce) is not kept', async () => {
      const { request, calls } = kept('query($z: String!) { zip(zip: $z) { city } }', { variables: {} });
      const outcome = await run(request);
      expect(outcome.kind).toBe('result');
      expect(calls).toEqual([]);
    });

    it("a document of the server's own is looked up before a context is made; a miss leaves its key for the store", async () => {
      const own = parse('{ zipStats { totalStates } }');
      const request = (): OperationRequest => ({ own, overGet: true, keep: { key: 'rest\n/zips/stats', serialize: (data) => JSON.stringify(data) } });
      const key = `rest\n/zips/stats\n\n\n${w.services.dataVersion.of('static')}`;
      const first = request();
      expect(w.pipeline.keptForOwn(first)).toBeUndefined();
      expect(first.missedKey).toBe(key);
      const outcome = await run(first);
      expect(outcome).toMatchObject({ kind: 'kept', key, answer: { body: '{"zipStats":{"totalStates":51}}' } });
      // Admitted the second time it is asked for.
      const second = request();
      expect(w.pipeline.keptForOwn(second)).toBeUndefined();
      await run(second);
      expect(w.pipeline.keptForOwn(request())).toMatchObject({
        kind: 'kept',
        key,
        answer: { body: '{"zipStats":{"totalStates":51}}' },
        cacheControl: 'private, max-age=86400, stale-while-revalidate=86400',
      });
      // Not for a request that is not its own, that may not be kept, or that names an operation.
      expect(w.pipeline.keptForOwn({ query: '{ zipStats { totalStates } }', keep: request().keep })).toBeUndefined();
      expect(w.pipeline.keptForOwn({ own })).toBeUndefined();
      expect(w.pipeline.keptForOwn({ ...request(), operationName: 'X' })).toBeUndefined();
      // A document of data that changes: no key, nothing to store.
      const health: OperationRequest = { own: parse('{ health { status } }'), keep: { key: 'rest\n/health', serialize: () => '' } };
      expect(w.pipeline.keptForOwn(health)).toBeUndefined();
      expect(health.missedKey).toBeUndefined();
    });

    it('the missed key is the one stored under', async () => {
      const own = parse('{ zipStats { totalZips totalStates } }');
      const request: OperationRequest = { own, keep: { key: 'rest\n/x', serialize: (data) => JSON.stringify(data) }, missedKey: 'a key of its own' };
      // Asked for before (the cache admits an answer asked for twice).
      w.cache.get('a key of its own');
      w.cache.get('a key of its own');
      const outcome = await run(request);
      expect(outcome).toMatchObject({ kind: 'kept', key: 'a key of its own' });
      expect(w.cache.get('a key of its own')?.body).toBe('{"zipStats":{"totalZips":40977,"totalStates":51}}');
    });
  });

  describe('cost', () => {
    it(`an operation over ${COST_LIMITS.complexity} units is QUERY_TOO_COMPLEX (400) before anything runs`, async () => {
      const ctx = w.context();
      const outcome = refusal(await run({ query: '{ states { zipcodes(limit: 1000) { zip city county stateCode stateName } } }' }, JSON_ONLY, ctx));
      expect([outcome.status, outcome.jsonStatus]).toEqual([400, 400]);
      expect(outcome.errors.map((e) => [e.message, e.extensions])).toEqual([
        [
          `Query complexity ${ctx.cost} is over the limit of ${COST_LIMITS.complexity}; ask for smaller pages or fewer nested lists.`,
          { code: 'QUERY_TOO_COMPLEX', status: 400 },
        ],
      ]);
      expect(ctx.cost).toBe(255_052);
      expect(outcome.extensions).toEqual({ cost: { requestedQueryCost: 255_052 }, requestId: ctx.requestId });
    });

    /** What `query` costs with these variables, as the cost step records it on a request's context. */
    const costsOf = (query: string) => async (variables: Record<string, unknown>) => {
      const ctx = w.context();
      await run({ query, variables }, JSON_ONLY, ctx);
      return ctx.cost;
    };

    it('the cost follows the numeric variables, each set of them costed once per document', async () => {
      const costOf = costsOf('query($n: Int) { states { zipcodes(limit: $n) { zip } } }');
      // 51 states, each a list of n ZIPs of one field: 1 + 51 × (1 + n).
      expect(await costOf({ n: 1 })).toBe(103);
      expect(await costOf({ n: 2 })).toBe(154);
      expect(await costOf({ n: 1 })).toBe(103);
    });

    it('every numeric variable counts, not only the first', async () => {
      const costOf = costsOf('query($a: Int, $n: Int) { states { zipcodes(offset: $a, limit: $n) { zip } } }');
      expect(await costOf({ a: 0, n: 1 })).toBe(103);
      expect(await costOf({ a: 0, n: 2 })).toBe(154);
    });

    it('variables whose key reaches the memo’s bound before the last of them are costed each time, never remembered by a part', async () => {
      const costOf = costsOf('query($c: [String!]!, $n: Int) { zips(codes: $c) { zip } states { zipcodes(limit: $n) { zip } } }');
      // 32 ZIPs: their part of the key (JSON and a comma) passes the bound; $n after them.
      const c = Array.from({ length: 32 }, (_, i) => String(80202 + i));
      expect(`${JSON.stringify(c)},`.length).toBeGreaterThan(MAX_MEMO_KEY_CHARS);
      const one = await costOf({ c, n: 1 });
      expect(await costOf({ c, n: 2 })).toBe(one! + 51);
      expect(await costOf({ c, n: 1 })).toBe(one);
    });

    it(`delivered in parts (@defer, @stream on a transport that streams), an operation costs ${INCREMENTAL_COST_FACTOR} times as much`, async () => {
      const query = '{ states @stream { zipcodes(limit: 500) { zip } } }';
      const whole = w.context();
      expect(result(await run({ query }, JSON_ONLY, whole)).data!.states).toHaveLength(51);
      const parts = w.context();
      const outcome = refusal(await run({ query }, STREAMS, parts));
      expect(outcome.errors.map((e) => e.extensions.code)).toEqual(['QUERY_TOO_COMPLEX']);
      expect(parts.cost).toBe(whole.cost! * INCREMENTAL_COST_FACTOR);
      // Without either directive, a transport that streams answers in one, at the cost of one.
      const plain = w.context();
      await run({ query: '{ states { zipcodes(limit: 500) { zip } } }' }, STREAMS, plain);
      expect(plain.cost).toBe(whole.cost);
    });

    it(`introspection costs what it answers: ${INTROSPECTION_COSTS.__schema} a schema, ${INTROSPECTION_COSTS.__type} a type, however reached`, async () => {
      const costOf = async (query: string) => {
        const ctx = w.context();
        const outcome = await run({ query }, JSON_ONLY, ctx);
        return [outcome.kind, ctx.cost];
      };
      expect(await costOf('{ __typename }')).toEqual(['result', 1]);
      expect(await costOf('{ __schema { queryType { name } } }')).toEqual(['result', 1 + INTROSPECTION_COSTS.__schema!]);
      expect(await costOf('{ a: __type(name: "Zip") { name } ... on Query { b: __type(name: "State") { name } } }')).toEqual([
        'result',
        2 + 2 * INTROSPECTION_COSTS.__type!,
      ]);
      // (Pothos counts the field once a spread; ours, once.)
      expect(await costOf('{ ...S ...S } fragment S on Query { __schema { queryType { name } } }')).toEqual(['result', 2 + INTROSPECTION_COSTS.__schema!]);
      // Six whole schemas are over the limit, before anything runs.
      const six = Array.from({ length: 6 }, (_, i) => `s${i}: __schema { types { name } }`).join(' ');
      expect(await costOf(`{ ${six} }`)).toEqual(['refused', 6 * (1 + INTROSPECTION_COSTS.__schema!)]);
    });

    it('the key is the operation’s own variables as coerced: undeclared names, however spelt, add nothing; left out and null differ', async () => {
      const costOf = costsOf('query($n: Int, $m: Int = 5) { states { zipcodes(limit: $n) { zip } } zip(zip: "80202") { nearby(limit: $m) { zip } } }');
      const cheap = await costOf({ n: 1, m: 1, 'n=1000;m': 1 });
      // Names that spell another key's separators: the cost is still of these numbers.
      expect(await costOf({ 'n=1;m': 1, n: 1000, m: 1 })).toBe(cheap! + 51 * 999);
      // $m left out is its default (5); sent as null it is the field's own default.
      const nulled = await costOf({ n: 1, m: null });
      expect(await costOf({ n: 1 })).toBe(cheap! + 4);
      expect(nulled).not.toBe(cheap! + 4);
    });

    it('object variables count too (a page size inside an input object)', async () => {
      const costOf = costsOf('query($p: Paging) { resorts(paging: $p) { resorts { id } } }');
      const five = await costOf({ p: { limit: 5 } });
      const ten = await costOf({ p: { limit: 10 } });
      expect(ten! - five!).toBe(10);
      expect(await costOf({ p: { limit: 5 } })).toBe(five);
      // A string variable does not change the cost, nor the memo's key.
      expect(await costOf({ p: { limit: 5 }, unused: 'x' })).toBe(five);
    });

    it('variables that do not coerce leave the cost unknown: execution says why', async () => {
      const ctx = w.context();
      const outcome = await run({ query: 'query($n: Int) { states { zipcodes(limit: $n) { zip } } }', variables: { n: 'many' } }, JSON_ONLY, ctx);
      expect(ctx.cost).toBeUndefined();
      expect(result(outcome)).toEqual({
        errors: [expect.objectContaining({ message: 'Variable "$n" got invalid value "many"; Int cannot represent non-integer value: "many"' })],
        extensions: { requestId: ctx.requestId },
      });
      expect(result(outcome).errors![0]!.extensions).toEqual({ code: 'BAD_USER_INPUT' });
    });

    it(`a list variable of many wrong items: its first ${MAX_VARIABLE_ERRORS} errors and where GraphQL stopped, not one per item`, async () => {
      const refusedWith = async (wrong: number) => {
        const c = Array.from({ length: 5_000 }, (_, i) => (i < wrong ? 1 : '05401'));
        return refusal(await run({ query: 'query($c: [String!]!) { zips(codes: $c) { zip } }', variables: { c } }));
      };
      // One fewer: execution tells them all, as for any variable that does not coerce.
      await expect(refusedWith(MAX_VARIABLE_ERRORS - 1)).rejects.toThrow(/expected a refusal, got \{"kind":"result"/);
      const outcome = await refusedWith(5_000);
      expect([outcome.status, outcome.jsonStatus]).toEqual([400, 400]);
      expect(outcome.errors.map((e) => e.extensions.code)).toEqual(Array(MAX_VARIABLE_ERRORS + 1).fill('BAD_USER_INPUT'));
      expect(outcome.errors[0]!.message).toBe('Variable "$c" got invalid value 1 at "c[0]"; String cannot represent a non string value: 1');
      expect(outcome.errors.at(-1)!.message).toBe('Too many errors processing variables, error limit reached. Execution aborted.');
    });

    it('the operation the request names is costed, not the document’s first', async () => {
      const ctx = w.context();
      const costly = 'query Costly { states { zipcodes(limit: 1000) { zip city county stateCode stateName } } }';
      const outcome = refusal(await run({ query: `query Cheap { __typename } ${costly}`, operationName: 'Costly' }, JSON_ONLY, ctx));
      expect(outcome.errors.map((e) => e.extensions.code)).toEqual(['QUERY_TOO_COMPLEX']);
      expect(ctx.cost).toBe(255_052);
      // And the first, named, costs what it costs alone.
      const cheap = w.context();
      expect(result(await run({ query: `query Cheap { __typename } ${costly}`, operationName: 'Cheap' }, JSON_ONLY, cheap)).data).toEqual({
        __typename: 'Query',
      });
      const alone = w.context();
      await run({ query: 'query Cheap { __typename }' }, JSON_ONLY, alone);
      expect([cheap.cost, alone.cost]).toEqual([1, 1]);
    });

    it('a cost is kept only when there is one: variables that did not coerce, or a refused argument, are not remembered for the next request', async () => {
      const query =
        'query($c: [String!]!, $q: String, $n: Int) { zips(codes: $c) { zip } resorts(filter: { q: $q }) { total } states { zipcodes(limit: $n) { zip city county stateCode stateName } } }';
      // The same numeric variables each time: the memo's key leaves strings out.
      const costed = async (variables: Record<string, unknown>) => {
        const ctx = w.context();
        const outcome = await run({ query, variables: { n: 1000, ...variables } }, JSON_ONLY, ctx);
        return [outcome.kind, ctx.cost];
      };
      expect(await costed({ c: [1] })).toEqual(['result', undefined]);
      expect(await costed({ c: ['05401'], q: '\tvail' })).toEqual(['refused', undefined]);
      expect(await costed({ c: ['05401'] })).toEqual(['refused', 255_075]);
    });

    it('an argument out of the bounds a cost is worked out from refuses the whole operation (400), naming it', async () => {
      const ctx = w.context();
      const outcome = refusal(await run({ query: '{ x: resorts(paging: { limit: 100000 }) { total } zipStats { totalZips } }' }, JSON_ONLY, ctx));
      expect(ctx.cost).toBeUndefined();
      expect(outcome.status).toBe(400);
      expect(outcome.errors).toHaveLength(1);
      expect(outcome.errors[0]!.extensions.code).toBe('BAD_USER_INPUT');
      expect(outcome.errors[0]!.message).toMatch(/limit/);
    });
  });

  describe('budget', () => {
    const costly = '{ states { zipcodes(limit: 400) { zip } } }';
    it("a key's operation that does not fit in its budget is RATE_LIMITED (429) with RateLimit headers", async () => {
      // 1 request/s: 2,000 units a request over 10 s is 20,000.
      const ctx = w.context({ keyId: 77, keyRate: 1 });
      const outcome = refusal(await run({ query: costly }, JSON_ONLY, ctx));
      expect(ctx.cost).toBe(20_452);
      expect([outcome.status, outcome.jsonStatus]).toEqual([429, 429]);
      expect(outcome.errors.map((e) => e.extensions)).toEqual([{ code: 'RATE_LIMITED', status: 429 }]);
      expect(outcome.errors[0]!.message).toBe(
        "This request costs 20452 and the key's cost budget of 20000 per 10 s has 20000 left; try again in 10 s, or ask for less (smaller pages, shorter history windows).",
      );
      expect(outcome.headers).toEqual(['retry-after', '10', 'ratelimit-limit', '20000', 'ratelimit-remaining', '20000', 'ratelimit-reset', '10']);
      expect(outcome.extensions).toEqual({
        cost: { requestedQueryCost: 20_452, throttleStatus: { maximumAvailable: 20_000, currentlyAvailable: 20_000, restoreRate: 2_000 } },
        requestId: ctx.requestId,
      });
    });

    it('one that fits is charged, and the answer says what is left', async () => {
      const ctx = w.context({ keyId: 78, keyRate: 1 });
      const outcome = result(await run({ query: '{ states { zipcodes(limit: 40) { zip } } }' }, JSON_ONLY, ctx));
      expect(outcome.extensions).toEqual({
        cost: { requestedQueryCost: 2_092, throttleStatus: { maximumAvailable: 20_000, currentlyAvailable: 17_908, restoreRate: 2_000 } },
        requestId: ctx.requestId,
      });
    });

    it('an operation whose cost is unknown (variables that do not coerce) charges nothing', async () => {
      const ctx = w.context({ keyId: 79, keyRate: 1 });
      const outcome = result(await run({ query: 'query($n: Int) { states { zipcodes(limit: $n) { zip } } }', variables: { n: 'many' } }, JSON_ONLY, ctx));
      expect(outcome.errors!.map((e) => e.extensions.code)).toEqual(['BAD_USER_INPUT']);
      expect(w.services.costBudget.status({ id: 79, ratePerSecond: 1 })).toEqual({ maximumAvailable: 20_000, currentlyAvailable: 20_000, restoreRate: 2_000 });
    });

    it('without a key (AUTH=off) nothing is charged', async () => {
      const ctx = w.context({ keyId: null, keyRate: 1 });
      expect(result(await run({ query: costly }, JSON_ONLY, ctx)).extensions).toEqual({ cost: { requestedQueryCost: 20_452 }, requestId: ctx.requestId });
    });
  });

  describe('finalize', () => {
    it('an error in a resolver that is not ours is "Unexpected error." to the client, and the whole error to the log', async () => {
      const broken = makeWorld('gateway-pipeline-broken-');
      try {
        // The database gone from under a resolver: better-sqlite3 throws a TypeError.
        broken.db.close();
        const ctx = broken.context();
        const outcome = result(await broken.pipeline.run({ query: '{ zip(zip: "80202") { city } }' }, JSON_ONLY, ctx));
        expect(outcome.errors!.map((e) => [e.message, e.path, e.extensions])).toEqual([[UNEXPECTED_MESSAGE, ['zip'], { code: 'INTERNAL_SERVER_ERROR' }]]);
        expect(outcome.data).toEqual({ zip: null });
        expect(broken.lines).toEqual([
          expect.objectContaining({
            level: 50,
            msg: 'unexpected error in a resolver',
            reqId: ctx.requestId,
            path: ['zip'],
            err: expect.objectContaining({ type: 'TypeError' }),
          }),
        ]);
      } finally {
        broken.close();
      }
    });

    it('our own errors pass as they are, with their code', async () => {
      const outcome = result(await run({ query: '{ zip(zip: "00000") { city } }' }));
      expect(outcome.errors!.map((e) => [e.message, e.extensions])).toEqual([
        [
          'ZIP code "00000" not found',
          { code: 'NOT_FOUND', status: 404, errors: [{ name: 'zip', value: '00000', bound: 'an existing zip code', message: 'no zip code "00000"' }] },
        ],
      ]);
    });

    it('a stream: its first part carries the cost and request id, the others do not', async () => {
      const ctx = w.context();
      const outcome = await run({ query: 'subscription { syncProgress { state } }' }, STREAMS, ctx);
      if (outcome.kind !== 'stream') throw new Error(outcome.kind);
      const parts = outcome.parts[Symbol.asyncIterator]();
      expect((await parts.next()).value).toEqual({
        data: { syncProgress: { state: 'IDLE' } },
        extensions: { cost: { requestedQueryCost: 2 }, requestId: ctx.requestId },
      });
      expect(await parts.return!()).toEqual({ done: true, value: undefined });
    });

    it('a refusal carries the request id (and no cost: nothing was costed)', async () => {
      const ctx = w.context();
      expect(refusal(await run({ query: '{ a' }, JSON_ONLY, ctx)).extensions).toEqual({ requestId: ctx.requestId });
    });

    it('a kept answer passes as it is', () => {
      const finalize = stepOf(w, 'finalize');
      const outcome: Outcome = { kind: 'kept', key: 'k', answer: { body: 'b' }, cacheControl: 'c' };
      expect(finalize.done!(operation(w, {}), outcome)).toBe(outcome);
    });

    it('an error of a result without a code is the request’s (BAD_USER_INPUT); internals leave nothing behind', () => {
      const finalize = stepOf(w, 'finalize');
      const op = operation(w, {});
      const extensions = { a: 1 };
      const withOriginal = new GraphQLError('ours', { extensions: { code: 'X', originalError: { secret: 1 } } });
      const outcome = finalize.done!(op, {
        kind: 'result',
        result: { data: { x: 1 }, errors: [new GraphQLError('no code'), withOriginal], extensions },
      }) as { result: ExecutionResult };
      expect(outcome.result.errors!.map((e) => [e.message, e.extensions])).toEqual([
        ['no code', { code: 'BAD_USER_INPUT' }],
        ['ours', { code: 'X' }],
      ]);
      expect(outcome.result.extensions).toEqual({ a: 1, requestId: op.context.requestId });
      // One of ours, with its code, no hint and nothing internal, is the very error given.
      const plain = new GraphQLError('ours', { extensions: { code: 'Y' } });
      const again = finalize.done!(op, { kind: 'result', result: { data: null, errors: [plain] } }) as { result: ExecutionResult };
      expect(again.result.errors![0]).toBe(plain);
      expect(outcome.result.data).toEqual({ x: 1 });
    });

    it('a refusal error without a code is a BAD_REQUEST', () => {
      const finalize = stepOf(w, 'finalize');
      const op = operation(w, {});
      const outcome = finalize.done!(op, { kind: 'refused', errors: [new GraphQLError('uncoded')], status: 400 });
      expect(outcome).toEqual({ kind: 'refused', errors: [expect.any(GraphQLError)], status: 400, extensions: { requestId: op.context.requestId } });
      expect(refusal(outcome).errors[0]!.extensions).toEqual({ code: 'BAD_REQUEST' });
    });
  });

  describe('execute', () => {
    it('@defer on a transport that streams is delivered in parts; on one that does not, in the one result', async () => {
      const query = '{ zipStats { totalZips } ... @defer { states { stateCode } } }';
      const one = result(await run({ query }, JSON_ONLY));
      expect(one.data).toMatchObject({ zipStats: { totalZips: 40977 }, states: expect.arrayContaining([{ stateCode: 'CO' }]) });
      const streamed = await run({ query }, STREAMS);
      if (streamed.kind !== 'stream') throw new Error(streamed.kind);
      expect(streamed.incremental).toBe(true);
      const parts: unknown[] = await allParts(streamed.parts);
      expect(parts[0]).toMatchObject({ data: { zipStats: { totalZips: 40977 } }, hasNext: true });
      expect(parts[0]).not.toHaveProperty('data.states');
      expect(parts.at(-1)).toMatchObject({ hasNext: false });
    });

    it('an incremental stream is cut at the request’s deadline (its signal): a last part says TIMEOUT', async () => {
      const deadline = new AbortController();
      deadline.abort();
      const outcome = await run({ query: '{ zipStats { totalZips } ... @defer { states { stateCode } } }' }, STREAMS, w.context({ signal: deadline.signal }));
      if (outcome.kind !== 'stream') throw new Error(outcome.kind);
      const parts: unknown[] = await allParts(outcome.parts);
      expect(parts).toEqual([
        {
          incremental: [
            { errors: [expect.objectContaining({ message: 'The deferred parts took longer than the execution limit; they were not delivered.' })] },
          ],
          hasNext: false,
          extensions: expect.objectContaining({ requestId: expect.any(String) }),
        },
      ]);
    });

    it('a subscription whose events cannot be had is one result with its errors, not a stream', async () => {
      const outcome = await run({ query: 'subscription { conditionsChanged(resortIds: ["no-such-resort"]) { resortId } }' }, STREAMS);
      expect(outcome.kind).toBe('result');
      expect(result(outcome).errors!.map((e) => e.extensions.code)).toEqual(['NOT_FOUND']);
    });

    it('@stream is incremental too; other directives are not', async () => {
      const streamed = await run({ query: '{ states @stream(initialCount: 1) { stateCode } }' }, STREAMS);
      expect(streamed).toMatchObject({ kind: 'stream', incremental: true });
      if (streamed.kind === 'stream') await allParts(streamed.parts);
      expect(result(await run({ query: '{ zipStats @include(if: true) { totalZips } }' }, STREAMS)).data).toEqual(TOTAL_ZIPS);
    });

    it('two fields of one name with different @stream arguments are not refused: the list streams as the first asks', async () => {
      const query = '{ states @stream(initialCount: 2) { stateCode } states @stream(initialCount: 50) { stateCode } }';
      const outcome = await run({ query }, STREAMS);
      if (outcome.kind !== 'stream') throw new Error(outcome.kind);
      const [first, ...rest] = (await allParts(outcome.parts)) as { data?: { states: unknown[] }; incremental?: { items?: unknown[] }[] }[];
      expect(first!.data!.states).toHaveLength(2);
      const streamedItems = rest.flatMap((p) => p.incremental ?? []).flatMap((piece) => piece.items ?? []);
      expect(2 + streamedItems.length).toBe(51);
    });

    it('the parts after the first carry no extensions of ours; an error in a deferred part is masked like any other', async () => {
      const broken = makeWorld('gateway-pipeline-broken-defer-');
      try {
        broken.db.close();
        const ctx = broken.context();
        const outcome = await broken.pipeline.run({ query: '{ __typename ... @defer { zip(zip: "80202") { city } } }' }, STREAMS, ctx);
        if (outcome.kind !== 'stream') throw new Error(outcome.kind);
        const parts = (await allParts(outcome.parts)) as { extensions?: unknown; incremental?: { errors?: GraphQLError[] }[] }[];
        expect(parts[0]).toMatchObject({ data: { __typename: 'Query' }, extensions: { requestId: ctx.requestId } });
        expect(parts.slice(1).every((p) => p.extensions === undefined)).toBe(true);
        const errors = parts.flatMap((p) => p.incremental ?? []).flatMap((piece) => piece.errors ?? []);
        expect(errors.map((e) => [e.message, e.extensions])).toEqual([[UNEXPECTED_MESSAGE, { code: 'INTERNAL_SERVER_ERROR' }]]);
      } finally {
        broken.close();
      }
    });

    it('graphql-jit runs, once loaded, the server’s own documents and those the parse cache keeps from their second run; the others and introspection graphql-js', async () => {
      // The two engines word a variable that does not coerce differently: that tells which ran.
      const jitted = makeWorld('gateway-pipeline-engines-');
      const byJs = 'Variable "$z" got invalid value 5; String cannot represent a non string value: 5';
      const byJit = 'Variable "$z" got invalid value 5; Expected type String; String cannot represent a non string value: 5';
      const query = 'query($z: String!) { zip(zip: $z) { city } }';
      const messageOf = async (request: OperationRequest) =>
        result(await jitted.pipeline.run(request, JSON_ONLY, jitted.context())).errors!.map((e) => e.message);
      try {
        expect(await messageOf({ query, variables: { z: 5 } })).toEqual([byJs]);
        await jitted.pipeline.loadCompiler();
        await jitted.pipeline.loadCompiler();
        // A client's document is compiled when it runs again (a one-off would cost its compiling and its memory).
        const again = 'query($z: String!) { zip(zip: $z) { city } } # again';
        expect(await messageOf({ query: again, variables: { z: 5 } })).toEqual([byJs]);
        expect(await messageOf({ query: again, variables: { z: 5 } })).toEqual([byJit]);
        expect(await messageOf({ query, variables: { z: 5 } })).toEqual([byJit]);
        expect(await messageOf({ own: parse(query), variables: { z: 5 } })).toEqual([byJit]);
        // Introspection never: a deep selection under __schema took seconds to compile.
        const introspecting = 'query($z: String!) { zip(zip: $z) { city } __type(name: "Zip") { name } }';
        for (let i = 0; i < 3; i++) expect(await messageOf({ query: introspecting, variables: { z: 5 } })).toEqual([byJs]);
        // Too long for the parse cache: a one-off, not compiled.
        expect(await messageOf({ query: `${query}${' '.repeat(MAX_CACHED_DOCUMENT_CHARS)}`, variables: { z: 5 } })).toEqual([byJs]);
        // Each operation of a document compiled for itself.
        const two = 'query A { zipStats { totalZips } } query B { zipStats { totalStates } }';
        const data = async (operationName: string) => result(await jitted.pipeline.run({ query: two, operationName }, JSON_ONLY, jitted.context())).data;
        expect(await data('A')).toEqual(TOTAL_ZIPS);
        expect(await data('B')).toEqual({ zipStats: { totalStates: 51 } });
        expect(await data('A')).toEqual(TOTAL_ZIPS);
        // IDs and enums are serialized as graphql-js would.
        expect(result(await jitted.pipeline.run({ query: '{ resort(id: "vail") { id conditions { status } } }' }, JSON_ONLY, jitted.context())).data).toEqual({
          resort: { id: 'vail', conditions: { status: 'OPEN' } },
        });
      } finally {
        jitted.close();
      }
    });

    it('compiled (graphql-jit, once loaded) or not, a kept document gives the same answer', async () => {
      const jitted = makeWorld('gateway-pipeline-jit-');
      try {
        const query = '{ zip(zip: "80202") { city state { stateCode } } }';
        const before = result(await jitted.pipeline.run({ query }, JSON_ONLY, jitted.context()));
        await jitted.pipeline.loadCompiler();
        const after = result(await jitted.pipeline.run({ query }, JSON_ONLY, jitted.context()));
        expect(after.data).toEqual(before.data);
        expect(after.data).toEqual({ zip: { city: 'Denver', state: { stateCode: 'CO' } } });
      } finally {
        jitted.close();
      }
    });
  });
});

describe('with introspection off (GRAPHQL_INTROSPECTION=off)', () => {
  let w: World;
  const services = sharedServices('gateway-pipeline-closed-');
  beforeEach(() => {
    w = worldOver(services(), { introspection: false });
  });
  const run = (request: OperationRequest) => Promise.resolve(w.pipeline.run(request, JSON_ONLY, w.context()));

  it('adds the no-introspection step after validation', () => {
    expect(w.pipeline.steps.map((s) => s.name)).toContain('no-introspection');
    expect(w.pipeline.steps.map((s) => s.name).indexOf('no-introspection')).toBe(w.pipeline.steps.map((s) => s.name).indexOf('validate') + 1);
  });

  it('__schema and __type are refused; __typename runs', async () => {
    const outcome = refusal(await run({ query: '{ __schema { description } }' }));
    expect([outcome.status, outcome.jsonStatus]).toEqual([400, 200]);
    expect(outcome.errors.map((e) => [e.message, e.extensions])).toEqual([
      ['GraphQL introspection has been disabled, but the requested query contained the field "__schema".', { code: 'GRAPHQL_VALIDATION_FAILED' }],
    ]);
    expect(only(await run({ query: '{ __type(name: "Zip") { name } }' })).message).toBe(
      'GraphQL introspection has been disabled, but the requested query contained the field "__type".',
    );
    expect(result(await run({ query: '{ __typename }' })).data).toEqual({ __typename: 'Query' });
  });

  it('"Did you mean" hints are taken out of every error (they name fields the schema does not show)', async () => {
    const outcome = refusal(await run({ query: '{ zipp zipStats { totalZipz } }' }));
    expect(outcome.errors.map((e) => [e.message, e.extensions, e.locations])).toEqual([
      ['Cannot query field "zipp" on type "Query".', { code: 'GRAPHQL_VALIDATION_FAILED' }, [{ line: 1, column: 3 }]],
      ['Cannot query field "totalZipz" on type "ZipStats".', { code: 'GRAPHQL_VALIDATION_FAILED' }, [{ line: 1, column: 19 }]],
    ]);
  });

  it('checkDocument gives the same verdicts: limits first, then the rules, then introspection', async () => {
    expect((await checkDocument(schema, parse('{ __schema { description } }'), false)).map((e) => e.message)).toEqual([
      'GraphQL introspection has been disabled, but the requested query contained the field "__schema".',
    ]);
    expect(await checkDocument(schema, parse('{ __schema { queryType { name } } }'), true)).toEqual([]);
    expect((await checkDocument(schema, parse('{ __schema { nope } zipp }'), false)).map((e) => e.message)).toEqual([
      'Cannot query field "nope" on type "__Schema".',
      'Cannot query field "zipp" on type "Query". Did you mean "zip" or "zips"?',
      'GraphQL introspection has been disabled, but the requested query contained the field "__schema".',
    ]);
    const aliases = parse(`{ ${Array.from({ length: 16 }, (_, i) => `a${i}: zipp`).join(' ')} }`);
    expect((await checkDocument(schema, aliases, true)).map((e) => e.message)).toEqual(['Syntax Error: Aliases limit of 15 exceeded, found 16.']);
  });
});

describe('with trusted documents only (GRAPHQL_TRUSTED_ONLY=on)', () => {
  const TRUSTED = '{ zipStats { totalStates } }';
  const id = sha256(TRUSTED);
  let w: World;
  const services = sharedServices('gateway-pipeline-trusted-');
  beforeEach(() => {
    w = worldOver(services(), { trustedOnly: true, documents: new PersistedDocuments({ trusted: new Map([[id, TRUSTED]]) }) });
  });
  const run = (request: OperationRequest) => Promise.resolve(w.pipeline.run(request, JSON_ONLY, w.context()));

  it('refuses any other document before it is parsed (400 PERSISTED_QUERY_ONLY)', async () => {
    expect(w.pipeline.steps.map((s) => s.name).slice(0, 4)).toEqual(['finalize', 'csrf', 'resolve-document', 'trusted-only']);
    for (const query of [ZIP_STATS, '{ not even a document']) {
      const outcome = refusal(await run({ query }));
      expect([outcome.status, outcome.jsonStatus]).toEqual([400, 400]);
      expect(outcome.errors.map((e) => [e.message, e.extensions])).toEqual([
        ['Only trusted documents run here (GRAPHQL_TRUSTED_ONLY=on): send the documentId of a document in the manifest.', { code: 'PERSISTED_QUERY_ONLY' }],
      ]);
    }
  });

  it("runs the manifest's documents by id (with or without sha256:), by hash, by their exact text; and the server's own", async () => {
    const expected = { zipStats: { totalStates: 51 } };
    expect(result(await run({ documentId: id })).data).toEqual(expected);
    expect(result(await run({ documentId: `sha256:${id}` })).data).toEqual(expected);
    expect(result(await run({ extensions: { persistedQuery: { version: 1, sha256Hash: id } } })).data).toEqual(expected);
    expect(result(await run({ query: TRUSTED })).data).toEqual(expected);
    expect(result(await run({ own: parse(ZIP_STATS) })).data).toEqual(TOTAL_ZIPS);
  });
});

describe("the server's own documents", () => {
  let w: World;
  const services = sharedServices('gateway-pipeline-own-');
  beforeEach(() => {
    w = worldOver(services());
  });

  it('skip the checks they pass by construction: a document the rules would refuse runs as it is', async () => {
    // Deeper than the limits allow: refused when a client sends it, run when it is the server's own.
    const deep = `{ zip(zip: "80202") { ${'state { zipcodes(limit: 1) { '.repeat(6)}zip${' } }'.repeat(6)} } }`;
    expect(refusal(await w.pipeline.run({ query: deep }, JSON_ONLY, w.context())).errors[0]!.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const own = result(await w.pipeline.run({ own: parse(deep) }, TRANSPORTS.rest, w.context()));
    expect(own.errors).toBeUndefined();
    expect(JSON.stringify(own.data)).toContain('"zipcodes":[{"zip":"80001"}]');
  });

  it('still go through the other rules: a mutation over GET is refused', async () => {
    const outcome = refusal(await w.pipeline.run({ own: parse('mutation { runSync { state } }'), overGet: true }, TRANSPORTS.rest, w.context()));
    expect(outcome.status).toBe(405);
  });
});

describe('traced (OTEL_* name an exporter)', () => {
  let w: World;
  const services = sharedServices('gateway-pipeline-traced-');
  beforeEach(() => {
    w = worldOver(services());
  });

  it("an operation is one span under the request's, named by its type and name, with its cost and its errors' count", async () => {
    await withTracing('pipeline-steps', async ({ exporter, tracer }) => {
      const named = w.context();
      const failed = w.context();
      await tracer.startActiveSpan('request', async (request) => {
        expect(result(await w.pipeline.run({ query: 'query Stats { zipStats { totalZips } }' }, JSON_ONLY, named)).data).toEqual(TOTAL_ZIPS);
        expect(result(await w.pipeline.run({ query: '{ zip(zip: "00000") { city } }' }, JSON_ONLY, failed)).errors).toHaveLength(1);
        request.end();
      });
      // Without a request's span (the warm-up, background work), no span.
      await w.pipeline.run({ query: ZIP_STATS }, JSON_ONLY, w.context());
      await w.pipeline.run({ query: '{ zip(zip: "00000") { city } }' }, JSON_ONLY, w.context());
      // A stream has no errors to count.
      await tracer.startActiveSpan('subscribe', async (request) => {
        const streamed = await w.pipeline.run({ query: 'subscription Sync { syncProgress { state } }' }, STREAMS, w.context());
        expect(streamed.kind).toBe('stream');
        if (streamed.kind === 'stream') await streamed.parts[Symbol.asyncIterator]().return!();
        request.end();
      });
      const spans = exporter.getFinishedSpans();
      // The loaders' batches are spans under the operation's.
      const load = spans.find((s) => s.name === 'load zipByCode')!;
      const [stats, failedZip, request] = spans.filter((s) => s !== load);
      expect(spans.find((s) => s.name === 'graphql subscription Sync')?.attributes).toEqual({
        'graphql.operation.type': 'subscription',
        'graphql.operation.name': 'Sync',
        'graphql.operation.cost': 2,
      });
      expect([stats, failedZip, request].map((s) => [s!.name, s!.attributes])).toEqual([
        ['graphql query Stats', { 'graphql.operation.type': 'query', 'graphql.operation.name': 'Stats', 'graphql.operation.cost': 2 }],
        ['graphql query', { 'graphql.operation.type': 'query', 'graphql.operation.name': '', 'graphql.operation.cost': 2, 'graphql.errors': 1 }],
        ['request', {}],
      ]);
      expect(stats!.parentSpanContext?.spanId).toBe(request!.spanContext().spanId);
      expect(load.parentSpanContext?.spanId).toBe(failedZip!.spanContext().spanId);
    });
  });
});

describe('the helpers the steps share', () => {
  it('checkedOnce gives the code to errors without one, keeps the one an error has, and remembers its verdict per document', () => {
    let checks = 0;
    const step = checkedOnce(
      'check',
      () => {
        checks++;
        return [new GraphQLError('uncoded'), new GraphQLError('coded', { extensions: { code: 'OWN' } })];
      },
      'THE_CODE',
    );
    const document = parse('{ __typename }');
    const op = { request: {}, document, checked: false } as unknown as Operation;
    const outcome = refusal(step.run!(op) as Outcome);
    expect(outcome.errors.map((e) => [e.message, e.extensions.code])).toEqual([
      ['uncoded', 'THE_CODE'],
      ['coded', 'OWN'],
    ]);
    expect([outcome.status, outcome.jsonStatus]).toEqual([400, 200]);
    expect(step.run!(op)).toBe(outcome);
    expect(checks).toBe(1);
    expect(step.passedByOwn).toBe(true);
  });

  it('a field the schema does not know keeps the leaf serializers (the document is refused before it runs anyway)', () => {
    expect(mayDisableLeafSerialization(schema, parse('{ zipStats { totalZips } }'))).toBe(true);
    expect(mayDisableLeafSerialization(schema, parse('{ nope }'))).toBe(false);
  });

  it('mapParts lets go of a source with no return() at once', async () => {
    const source: AsyncIterable<number> = { [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: false, value: 1 }) }) };
    const mapped = mapParts(source, (n) => n + 1);
    expect(await mapped.next()).toEqual({ done: false, value: 2 });
    expect(await mapped.return!()).toEqual({ done: true, value: undefined });
  });

  it('cutAtDeadline without a deadline passes every part; after the end it does not ask the source again', async () => {
    let asked = 0;
    const parts: AsyncIterable<IncrementalPart> = {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          asked++;
          if (asked > 2) throw new Error('asked after the end');
          // Each part a turn later, as a source's parts come: nothing about a missing signal answers first.
          const part = asked === 1 ? { done: false as const, value: { data: { a: 1 }, hasNext: false } } : { done: true as const, value: undefined };
          return new Promise((resolve) => setImmediate(() => resolve(part)));
        },
      }),
    };
    const cut = cutAtDeadline(parts, undefined);
    expect(await cut.next()).toEqual({ done: false, value: { data: { a: 1 }, hasNext: false } });
    expect(await cut.next()).toEqual({ done: true, value: undefined });
    expect(await cut.next()).toEqual({ done: true, value: undefined });
    expect(asked).toBe(2);
  });

  it('cutAtDeadline cuts a source with no return() too, and its own return() ends it', async () => {
    const parts: AsyncIterable<IncrementalPart> = { [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => {}) }) };
    const deadline = new AbortController();
    const cut = cutAtDeadline(parts, deadline.signal);
    const waiting = cut.next();
    deadline.abort();
    expect(await bounded(waiting)).toMatchObject({ done: false, value: { hasNext: false, incremental: [{ errors: [{ extensions: { code: 'TIMEOUT' } }] }] } });
    expect(await cut.next()).toEqual({ done: true, value: undefined });
    const other = cutAtDeadline(parts, new AbortController().signal);
    expect(await other.return!()).toEqual({ done: true, value: undefined });
    expect(await other.next()).toEqual({ done: true, value: undefined });
  });
});
