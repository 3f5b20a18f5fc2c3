// Talking to the embeddings stand-in of test/agent/openai-server.ts from tests in workerd.
import { env } from 'cloudflare:workers';

const root = () => `http://127.0.0.1:${env.OPENAI_STAND_IN_PORT}`;

/** The base URL of an embedder whose calls the stand-in records under `tag`. */
export function standInBaseUrl(tag: string): string {
  return `${root()}/t/${tag}/v1`;
}

/** Every embeddings request the stand-in received under `tag` (Workers AI calls: tag `workers-ai`). */
export async function embeddingsReceived(tag: string): Promise<Array<{ authorization?: string; body: any }>> {
  return (await fetch(`${root()}/control/embeddings/${tag}`)).json();
}

/** Makes the next `times` embeddings requests under `tag` answer `status`. */
export async function failEmbeddings(tag: string, times: number, status = 500): Promise<void> {
  await fetch(`${root()}/control/fail-embeddings/${tag}`, { method: 'POST', body: JSON.stringify({ times, status }) });
}
