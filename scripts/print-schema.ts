import { writeFileSync, mkdirSync } from 'node:fs';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { schema } from '../src/graphql/schema.js';
import { annotateCosts } from '../src/graphql/cost-directives.js';

// The committed SDL; CI regenerates it and fails when it differs (npm run codegen:check).
mkdirSync('schema', { recursive: true });
// Each field's cost as IBM's @cost / @listSize directives (graphql-js's printer leaves applied directives out).
annotateCosts(schema);
writeFileSync('schema/schema.graphql', `${printSchemaWithDirectives(schema)}\n`);
console.log('wrote schema/schema.graphql');
