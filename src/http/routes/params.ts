import { z } from 'zod';

/** Tenant, search app, agent and email configuration codes. */
export const codeParam = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a code is 1 to 64 letters, digits, _ . - and starts with a letter or digit');
