import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import spectralCore from '@stoplight/spectral-core';
import spectralRulesets from '@stoplight/spectral-rulesets';
import * as SpectralParsers from '@stoplight/spectral-parsers';
import { createConfig, lintFromString } from '@redocly/openapi-core';

/**
 * The committed /openapi.json (schema/openapi.json: what the server serves, test/openapi.test.ts
 * checks, and codegen keeps current) under two independent linters. Here, away from any server:
 * linting takes seconds of CPU, which in an HTTP test's worker outlasted a pooled connection's
 * keep-alive on a busy machine.
 */
const DOC = path.join(import.meta.dirname, '..', '..', 'schema', 'openapi.json');

/** Spectral's `spectral:oas` ruleset (recommended rules) over the document: its findings. */
async function spectralFindings(text: string): Promise<string[]> {
  const { Spectral, Document } = spectralCore;
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [[spectralRulesets.oas as never, 'recommended']] });
  const results = await spectral.run(new Document(text, SpectralParsers.Json, 'openapi.json'));
  return results.map((r) => `${r.code} ${r.path.join('.')}: ${r.message}`);
}

/** Redocly's `recommended` rules over the document: its findings. */
async function redoclyFindings(text: string): Promise<string[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: text, absoluteRef: '/openapi.json', config });
  return problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
}

describe('the OpenAPI document under linters', () => {
  it("Spectral's spectral:oas and Redocly's recommended rules find nothing", async () => {
    const text = readFileSync(DOC, 'utf8');
    const doc = JSON.parse(text);
    expect(await spectralFindings(text)).toEqual([]);
    expect(await redoclyFindings(text)).toEqual([]);
    // They do look: a document without descriptions and contact draws their findings.
    const bare = structuredClone(doc);
    delete bare.info.contact;
    delete bare.info.license;
    delete bare.paths['/api/zip/{zip}'].get.description;
    expect(await spectralFindings(JSON.stringify(bare))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^info-contact/), expect.stringMatching(/^operation-description paths\.\/api\/zip\/\{zip\}\.get/)]),
    );
    expect(await redoclyFindings(JSON.stringify(bare))).toEqual(expect.arrayContaining([expect.stringMatching(/^info-license/)]));
    // And they read the response examples against their schemas: a wrong one is found.
    const wrong = structuredClone(doc);
    wrong.paths['/api/zip/{zip}'].get.responses['200'].content['application/json'].example.lat = 'north';
    expect(await spectralFindings(JSON.stringify(wrong))).toEqual([
      expect.stringMatching(/^oas3-valid-media-example paths\.\/api\/zip\/\{zip\}\.get\.responses\.200\.content\.application\/json\.example\.lat/),
    ]);
  }, 60_000);
});
