import { drizzle } from 'drizzle-orm/d1';
import * as schema from './schema';

function connect(d1: D1Database) {
  return drizzle(d1, { schema });
}

export type Db = ReturnType<typeof connect>;

/** One drizzle client per D1 binding: building one derives the relational config of every table, which cost every request ~5 % of the worker's CPU. */
const clients = new WeakMap<D1Database, Db>();

/** The drizzle client of a D1 binding (made once per isolate; it holds no request state). */
export function createDb(d1: D1Database): Db {
  let db = clients.get(d1);
  if (!db) clients.set(d1, (db = connect(d1)));
  return db;
}
