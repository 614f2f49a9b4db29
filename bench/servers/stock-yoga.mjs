/** Stock graphql-yoga over the peers' Pothos schema (zip-schema.mjs), for `npm run bench`. No limits, no keys. */
import { createServer } from 'node:http';
import { createYoga } from 'graphql-yoga';
import { zipSchema } from './zip-schema.mjs';

const yoga = createYoga({ schema: await zipSchema(process.env.DB_PATH), logging: false });
createServer(yoga).listen(Number(process.env.PORT), '127.0.0.1');
