// Shared by the Node stand-ins (stand-ins.ts) and the tests in workerd.

export const SMTP_USER = 'mailer';
export const SMTP_PASSWORD = 'smtp-secret';
export const HTTP_API_KEY = 'http-api-secret';

export interface ReceivedEmail {
  channel: 'smtp' | 'http';
  from: string;
  to: string[];
  subject: string;
  text?: string;
  html?: string;
  /** SMTP: the authenticated user; HTTP: the Authorization header. */
  credential?: string;
}
