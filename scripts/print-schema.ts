import { writeFileSync, mkdirSync } from 'node:fs';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { schema } from '../src/graphql/schema.js';
import { annotateCosts } from '../src/graphql/cost-directives.js';
import { openApiDocument } from '../src/transports/rest/openapi.js';
import { routes } from '../src/transports/rest/routes.js';
import { API_VERSION } from '../src/lib/version.js';

// The committed SDL; CI regenerates it and fails when it differs (npm run codegen:check).
mkdirSync('schema', { recursive: true });
// Each field's cost as IBM's @cost / @listSize directives (graphql-js's printer leaves applied directives out).
annotateCosts(schema);
writeFileSync('schema/schema.graphql', `${printSchemaWithDirectives(schema)}\n`);
console.log('wrote schema/schema.graphql');

// The REST reference as /openapi.json serves it, committed beside the SDL so a change to it shows
// in review and can be compared with the released copy (scripts/api-compat.ts).
writeFileSync('schema/openapi.json', `${JSON.stringify(openApiDocument(routes, API_VERSION, schema), null, 2)}\n`);
console.log('wrote schema/openapi.json');
