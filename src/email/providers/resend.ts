import { z } from 'zod';
import { DeliveryError, type ProviderModule } from './types';

/** A Resend-style JSON API: `POST {baseUrl}/emails` with a bearer API key. */
export const resendConfigSchema = z
  .object({
    type: z.literal('resend'),
    apiKey: z.string().min(1).max(1000),
    baseUrl: z.url({ protocol: /^https?$/ }).default('https://api.resend.com'),
  })
  .strict();

export type ResendConfig = z.infer<typeof resendConfigSchema>;

/** 4xx answers are the request's fault and permanent, except timeouts and rate limits. */
function isPermanent(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

export const resendProvider: ProviderModule<ResendConfig> = {
  secretFields: ['apiKey'],
  create(config) {
    return {
      async send(email) {
        let response: Response;
        try {
          response = await fetch(`${config.baseUrl.replace(/\/+$/, '')}/emails`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${config.apiKey}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ from: email.from, to: [email.to], subject: email.subject, html: email.html, text: email.text }),
          });
        } catch (error) {
          throw new DeliveryError(`HTTP API unreachable: ${error instanceof Error ? error.message : String(error)}`, false);
        }
        if (response.ok) {
          await response.body?.cancel();
          return;
        }
        const detail = (await response.text()).slice(0, 300);
        throw new DeliveryError(`HTTP API answered ${response.status}: ${detail}`, isPermanent(response.status));
      },
    };
  },
};
