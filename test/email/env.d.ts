declare global {
  namespace Cloudflare {
    interface Env {
      /** Ports of the stand-ins started by test/email/stand-ins.ts. */
      EMAIL_SMTP_PORT: number;
      EMAIL_HTTP_PORT: number;
    }
  }
}

export {};
