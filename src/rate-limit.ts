/**
 * Rate limits on what strangers can call (search and suggest, chat, email send), with Cloudflare's Rate Limiting
 * binding. A namespace has one fixed limit, so limits are tiers: one binding per tier (wrangler.toml `[[ratelimits]]`),
 * and each search app, agent and email configuration names its tier (`rateLimit`, or `off`).
 */
import { z } from 'zod';
import type { Env } from './env';
import { ApiError } from './errors';

export const RATE_LIMIT_TIERS = ['low', 'standard', 'high', 'off'] as const;
export type RateLimitTier = (typeof RATE_LIMIT_TIERS)[number];
export const rateLimitTier = z.enum(RATE_LIMIT_TIERS);

/** The period of every tier (the binding allows 10 or 60 s); a refused caller is told to retry after it. */
export const RATE_LIMIT_PERIOD_SECONDS = 10;

const BINDINGS = { low: 'RATE_LIMIT_LOW', standard: 'RATE_LIMIT_STANDARD', high: 'RATE_LIMIT_HIGH' } as const;

/** What is limited, and per what: the key the binding counts. */
export type RateLimited =
  | { kind: 'search'; appId: number; clientIp: string }
  | { kind: 'chat'; agentId: number; session: string }
  | { kind: 'email'; configId: number };

function keyOf(subject: RateLimited): string {
  if (subject.kind === 'search') return `search:${subject.appId}:${subject.clientIp}`;
  if (subject.kind === 'chat') return `chat:${subject.agentId}:${subject.session}`;
  return `email:${subject.configId}`;
}

/** The binding that counts a tier's requests; none for `off`, nor in a deployment without the bindings (not limited). */
function limiter(env: Env, tier: RateLimitTier): RateLimit | undefined {
  return tier === 'off' ? undefined : env[BINDINGS[tier]];
}

/** Whether `enforceRateLimit` asks a binding for this tier (so a request of it waits on one). */
export function isLimited(env: Env, tier: RateLimitTier): boolean {
  return limiter(env, tier) !== undefined;
}

/** ApiError 429 (with Retry-After) once `subject` spent its tier's requests of the current period. */
export async function enforceRateLimit(env: Env, tier: RateLimitTier, subject: RateLimited): Promise<void> {
  const binding = limiter(env, tier);
  if (!binding) return;
  const { success } = await binding.limit({ key: keyOf(subject) });
  if (!success) throw ApiError.tooManyRequests(RATE_LIMIT_PERIOD_SECONDS);
}
