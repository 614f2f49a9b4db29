/**
 * The fastest peer for `npm run bench`: fastify + mercurius with graphql-jit (`jit: 1` compiles a
 * query on its first run), over the same Pothos schema as the stock Yoga row. No limits, no keys.
 */
import Fastify from 'fastify';
import mercurius from 'mercurius';
import { zipSchema } from './zip-schema.mjs';

const app = Fastify({ logger: false });
app.register(mercurius, { schema: await zipSchema(process.env.DB_PATH), jit: 1 });
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
