/** One rendered email, ready for a provider. */
export interface OutgoingEmail {
  from: string;
  to: string;
  subject: string;
  html?: string;
  text?: string;
}

export interface EmailProvider {
  /** Resolves once the provider accepted the email; throws DeliveryError otherwise. */
  send(email: OutgoingEmail): Promise<void>;
}

/** A failed delivery attempt. Permanent failures (SMTP 5xx, HTTP API 4xx) are not retried. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

/** What a provider module offers; adding a provider means one module of this shape and one line in index.ts. */
export interface ProviderModule<Config extends { type: string }> {
  /** Names of the config fields that are secrets: answered as `***`, never logged. */
  secretFields: readonly (keyof Config & string)[];
  create(config: Config): EmailProvider;
}
