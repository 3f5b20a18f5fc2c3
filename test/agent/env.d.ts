declare global {
  namespace Cloudflare {
    interface Env {
      /** Port of the OpenAI-compatible stand-in started by test/agent/openai-server.ts. */
      OPENAI_STAND_IN_PORT: number;
    }
  }
}

export {};
