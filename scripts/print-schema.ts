import { writeFileSync, mkdirSync } from 'node:fs';
import { printSchema } from 'graphql';
import { schema } from '../src/graphql/schema.js';

// The committed SDL; CI regenerates it and fails when it differs (npm run codegen:check).
mkdirSync('schema', { recursive: true });
writeFileSync('schema/schema.graphql', `${printSchema(schema)}\n`);
console.log('wrote schema/schema.graphql');
