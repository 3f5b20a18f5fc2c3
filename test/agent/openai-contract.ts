// Shared by the Node stand-in (openai-server.ts) and the tests in workerd.
// The stand-in is told what to do by magic words in the last user message:

/** Answer 500 before streaming. */
export const FAIL_500 = 'FAIL_500';
/** Stream two fragments, then drop the connection. */
export const FAIL_MIDSTREAM = 'FAIL_MIDSTREAM';
/** Stream one fragment, then wait for `POST /control/release/<tag>` before the rest. */
export const HOLD = 'HOLD';
/**
 * `SEARCH:<query>`: when tools are offered, call the `search` tool with `{ q: <query> }` (arguments split over chunks);
 * after the tool message, reply `Found <id> [[SVCACTION]]{"action":"open","id":"<id>"}` for its first document,
 * else `Search said: <tool message>`.
 */
export const SEARCH = 'SEARCH:';

/** A request as the stand-in received it. */
export interface ReceivedCompletion {
  authorization?: string;
  body: {
    model: string;
    stream: boolean;
    user?: string;
    messages: Array<{ role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }>;
    tools?: Array<{ type: string; function: { name: string; description: string; parameters: unknown } }>;
  };
}

/** The reply the stand-in streams for a plain message, fragment by fragment. */
export function echoFragments(text: string, historyLength: number): string[] {
  return ['Echo', ': ', text, ` (${historyLength} messages)`];
}
