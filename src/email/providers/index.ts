import { z } from 'zod';
import { resendConfigSchema, resendProvider, type ResendConfig } from './resend';
import { smtpConfigSchema, smtpProvider, type SmtpConfig } from './smtp';
import type { EmailProvider, ProviderModule } from './types';

export { DeliveryError, type EmailProvider } from './types';

export type EmailProviderConfig = SmtpConfig | ResendConfig;

export const emailProviderSchema = z.discriminatedUnion('type', [smtpConfigSchema, resendConfigSchema]);

const providers: { [T in EmailProviderConfig['type']]: ProviderModule<Extract<EmailProviderConfig, { type: T }>> } = {
  smtp: smtpProvider,
  resend: resendProvider,
};

function moduleOf(config: EmailProviderConfig): ProviderModule<EmailProviderConfig> {
  return providers[config.type] as ProviderModule<EmailProviderConfig>;
}

export function createProvider(config: EmailProviderConfig): EmailProvider {
  return moduleOf(config).create(config);
}

/** The provider config as answered by the admin API: secrets shown as `***`. */
export function redactProvider(config: EmailProviderConfig): Record<string, unknown> {
  const shown: Record<string, unknown> = { ...config };
  for (const field of moduleOf(config).secretFields) if (shown[field] !== undefined) shown[field] = '***';
  return shown;
}
