import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { randomToken, sha256Hex } from '../auth/crypto';
import { TOKEN_HEADER } from '../auth/tokens';
import type { Db } from '../db/client';
import { requireTenant } from '../db/queries';
import { emailConfigs, type EmailVariables, type StoredEmailSecurity } from '../db/schema';
import { ApiError } from '../errors';
import { emailProviderSchema, redactProvider } from './providers';
import { templateErrors } from './templates';
import { rateLimitTier } from '../rate-limit';
import { notReserved } from '../validation';

export type EmailConfigRow = typeof emailConfigs.$inferSelect;

export const MASKED = '[masked]';

export const variableName = notReserved(
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a variable name is 1 to 64 letters, digits and _, not starting with a digit'),
);

export const variableSchema = z
  .object({ value: z.string().max(10_000), type: z.enum(['standard', 'masked']).default('standard') })
  .strict();

export const variablesSchema = z.record(variableName, variableSchema).refine((v) => Object.keys(v).length <= 100, {
  message: 'at most 100 variables',
});

const headerName = z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'an HTTP header name of letters, digits and -');

/** Body of `PUT /api/v1/admin/email/{tenant}/{code}`: present fields replace the stored ones, `null` clears one. */
export const emailConfigInput = z
  .object({
    from: z.email().max(320).nullable().optional(),
    subject: z.string().min(1).max(998).nullable().optional(),
    html: z.string().min(1).max(200_000).nullable().optional(),
    text: z.string().min(1).max(200_000).nullable().optional(),
    variables: variablesSchema.optional(),
    provider: emailProviderSchema.nullable().optional(),
    security: z
      .object({ type: z.literal('apiKey'), header: headerName.optional() })
      .strict()
      .nullable()
      .optional(),
    rateLimit: rateLimitTier.optional(),
    /** Issues a new API key for the existing security configuration; the old one stops working. */
    rotateKey: z.boolean().optional(),
  })
  .strict();

export type EmailConfigInput = z.infer<typeof emailConfigInput>;

/** What a configuration lacks before it can send; empty when it is complete and ready. */
export function missingForSend(config: Pick<EmailConfigRow, 'from' | 'subject' | 'html' | 'text' | 'provider' | 'security'>): string[] {
  const missing: string[] = [];
  if (!config.from) missing.push('from');
  if (!config.subject) missing.push('subject');
  if (!config.html && !config.text) missing.push('template (html or text)');
  if (!config.provider) missing.push('provider');
  if (!config.security) missing.push('security configuration');
  return missing;
}

export async function findEmailConfig(db: Db, tenantCode: string, code: string): Promise<EmailConfigRow | undefined> {
  return db.query.emailConfigs.findFirst({ where: and(eq(emailConfigs.tenantCode, tenantCode), eq(emailConfigs.code, code)) });
}

export async function requireEmailConfig(db: Db, tenantCode: string, code: string): Promise<EmailConfigRow> {
  const config = await findEmailConfig(db, tenantCode, code);
  if (!config) throw ApiError.notFound(`Email configuration '${tenantCode}/${code}' not found`);
  return config;
}

async function newSecurity(header: string): Promise<{ security: StoredEmailSecurity; apiKey: string }> {
  const apiKey = `sek_${randomToken(32)}`;
  return { security: { type: 'apiKey', header, keyHash: await sha256Hex(apiKey) }, apiKey };
}

/** Creates or updates a configuration; answers it with the API key when one was issued (the only time it is shown). */
export async function putEmailConfig(db: Db, tenantCode: string, code: string, input: EmailConfigInput) {
  const templateDetails = templateErrors({ subject: input.subject, html: input.html, text: input.text });
  if (templateDetails.length) throw ApiError.badRequest('Invalid request body', templateDetails);
  await requireTenant(db, tenantCode);
  const existing = await findEmailConfig(db, tenantCode, code);

  let security = existing?.security ?? null;
  let apiKey: string | undefined;
  if (input.security === null) security = null;
  else if (input.security) {
    const header = input.security.header ?? security?.header ?? TOKEN_HEADER;
    if (security) security = { ...security, header };
    else ({ security, apiKey } = await newSecurity(header));
  }
  if (input.rotateKey) {
    if (!security)
      throw ApiError.badRequest('Invalid request body', [{ path: 'rotateKey', message: 'no security configuration to rotate' }]);
    ({ security, apiKey } = await newSecurity(security.header));
  }

  const values = {
    from: input.from === undefined ? (existing?.from ?? null) : input.from,
    subject: input.subject === undefined ? (existing?.subject ?? null) : input.subject,
    html: input.html === undefined ? (existing?.html ?? null) : input.html,
    text: input.text === undefined ? (existing?.text ?? null) : input.text,
    variables: (input.variables as EmailVariables | undefined) ?? existing?.variables ?? {},
    provider: input.provider === undefined ? (existing?.provider ?? null) : input.provider,
    security,
    rateLimit: input.rateLimit ?? existing?.rateLimit ?? 'standard',
  };
  const [row] = await db
    .insert(emailConfigs)
    .values({ tenantCode, code, ...values })
    .onConflictDoUpdate({ target: [emailConfigs.tenantCode, emailConfigs.code], set: { ...values, updatedAt: new Date().toISOString() } })
    .returning();
  return emailConfigView(row, apiKey);
}

/** A configuration as the admin API answers it: no credentials, no key hash, masked defaults as `[masked]`. */
/** The email configurations of a tenant, by code. */
export async function listEmailConfigs(db: Db, tenantCode: string): Promise<EmailConfigRow[]> {
  await requireTenant(db, tenantCode);
  return db.query.emailConfigs.findMany({ where: eq(emailConfigs.tenantCode, tenantCode), orderBy: [asc(emailConfigs.code)] });
}

/** Deletes an email configuration with its delivery log; safe to retry. */
export async function deleteEmailConfig(db: Db, tenantCode: string, code: string): Promise<void> {
  await db.delete(emailConfigs).where(and(eq(emailConfigs.tenantCode, tenantCode), eq(emailConfigs.code, code)));
}

export function emailConfigView(row: EmailConfigRow, apiKey?: string) {
  const missing = missingForSend(row);
  return {
    tenantCode: row.tenantCode,
    code: row.code,
    from: row.from,
    subject: row.subject,
    html: row.html,
    text: row.text,
    variables: Object.fromEntries(
      Object.entries(row.variables).map(([name, v]) => [name, v.type === 'masked' ? { value: MASKED, type: v.type } : v]),
    ),
    provider: row.provider ? redactProvider(row.provider) : null,
    security: row.security ? { type: row.security.type, header: row.security.header } : null,
    rateLimit: row.rateLimit,
    ...(apiKey ? { apiKey } : {}),
    ready: missing.length === 0,
    missing,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
