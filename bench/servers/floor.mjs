/**
 * The floor for `npm run bench`: the least a ZIP lookup over HTTP can cost here — node:http, one
 * prepared better-sqlite3 statement, JSON out. No validation, no key check, no GraphQL.
 */
import { createServer } from 'node:http';
import Database from 'better-sqlite3';

const db = new Database(process.env.DB_PATH, { readonly: true, fileMustExist: true });
const stmt = db.prepare('SELECT * FROM zips WHERE zip = ?');
createServer((req, res) => {
  const row = stmt.get(req.url.slice(req.url.lastIndexOf('/') + 1));
  res.writeHead(row ? 200 : 404, { 'content-type': 'application/json' });
  res.end(JSON.stringify(row ?? null));
}).listen(Number(process.env.PORT), '127.0.0.1');
