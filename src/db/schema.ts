import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { SearchAppField } from '../search/field-schema';
import type { NamedSort } from '../search/engine/types';

const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;
const timestamps = {
  createdAt: text('created_at').notNull().default(now),
  updatedAt: text('updated_at').notNull().default(now),
};

// ---------------------------------------------------------------- tenants, search apps, tokens

export const tenants = sqliteTable('tenants', {
  code: text('code').primaryKey(),
  name: text('name').notNull(),
  ...timestamps,
});


export const searchApps = sqliteTable(
  'search_apps',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    tenantCode: text('tenant_code')
      .notNull()
      .references(() => tenants.code, { onDelete: 'cascade' }),
    code: text('code').notNull(),
    name: text('name').notNull(),
    /** The field schema (SearchAppSchemaField[] with defaults filled in), JSON. */
    fields: text('fields', { mode: 'json' }).$type<SearchAppField[]>().notNull().default(sql`'[]'`),
    sorts: text('sorts', { mode: 'json' }).$type<NamedSort[]>().notNull().default(sql`'[]'`),
    ...timestamps,
  },
  (t) => [uniqueIndex('search_apps_tenant_code').on(t.tenantCode, t.code)],
);

export type TokenKind = 'admin' | 'feeding';
export type Permission = 'READ' | 'WRITE';

/** Tenant API tokens; only the SHA-256 of the secret part is stored. */
export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    tenantCode: text('tenant_code')
      .notNull()
      .references(() => tenants.code, { onDelete: 'cascade' }),
    kind: text('kind').$type<TokenKind>().notNull(),
    permission: text('permission').$type<Permission>().notNull(),
    name: text('name'),
    secretHash: text('secret_hash').notNull(),
    createdAt: text('created_at').notNull().default(now),
  },
  (t) => [index('api_tokens_tenant').on(t.tenantCode)],
);
