import { LogLevel, WorkerMailer } from 'worker-mailer';
import { z } from 'zod';
import { DeliveryError, type ProviderModule } from './types';

export const smtpConfigSchema = z
  .object({
    type: z.literal('smtp'),
    host: z.string().min(1).max(255),
    port: z.number().int().min(1).max(65535),
    /** `tls`: implicit TLS (port 465); `starttls`: upgrade after EHLO (port 587); `none`: plain text. */
    security: z.enum(['starttls', 'tls', 'none']).default('starttls'),
    user: z.string().min(1).max(320).optional(),
    password: z.string().min(1).max(1000).optional(),
  })
  .strict()
  .refine((c) => (c.user === undefined) === (c.password === undefined), {
    message: 'user and password go together',
    path: ['password'],
  });

export type SmtpConfig = z.infer<typeof smtpConfigSchema>;

/** An SMTP error message of worker-mailer carries the server's reply, e.g. `Invalid RCPT TO: <a@b> 550 No such user`. */
const REPLY_CODE = /(?:^|\s)([2-5])\d\d(?=[\s-]|$)/;
/** Client-side refusals that no retry can fix. */
const CONFIGURATION_ERRORS = /requires authentication, but no credentials|No supported auth method/;

function toDeliveryError(error: unknown): DeliveryError {
  const message = error instanceof Error ? error.message : String(error);
  const permanent = REPLY_CODE.exec(message)?.[1] === '5' || CONFIGURATION_ERRORS.test(message);
  return new DeliveryError(`SMTP: ${message.trim()}`, permanent);
}

export const smtpProvider: ProviderModule<SmtpConfig> = {
  secretFields: ['password'],
  create(config) {
    return {
      async send(email) {
        let mailer: WorkerMailer | undefined;
        try {
          mailer = await WorkerMailer.connect({
            host: config.host,
            port: config.port,
            secure: config.security === 'tls',
            startTls: config.security === 'starttls',
            credentials: config.user ? { username: config.user, password: config.password ?? '' } : undefined,
            authType: ['plain', 'login'],
            // Debug logging would write the AUTH exchange (the password) to the log.
            logLevel: LogLevel.NONE,
            socketTimeoutMs: 15_000,
            responseTimeoutMs: 15_000,
          });
          await mailer.send({ from: email.from, to: email.to, subject: email.subject, html: email.html, text: email.text });
        } catch (error) {
          throw toDeliveryError(error);
        } finally {
          await mailer?.close();
        }
      },
    };
  },
};
