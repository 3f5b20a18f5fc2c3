import { z } from 'zod';
import { enforceRateLimit } from '../rate-limit';
import { createDb, type Db } from '../db/client';
import type { Env } from '../env';
import { ApiError, logError } from '../errors';
import { parseJsonBody } from '../validation';
import { prepareAttachments } from './attachments';
import { requireAgent, type AgentRow } from './config';
import { ACTION_INSTRUCTIONS, runSearchTool, SEARCH_TOOL } from './grounding';
import { ProviderError, resolveModel, type ChatMessage, type ChatProvider, type ModelAttachment } from './providers';
import { appendTurns, loadHistory, resetSession } from './sessions';

/** Model calls per user message: tool rounds plus the final answer. */
const MAX_MODEL_CALLS = 4;

const sessionIdSchema = z.string().min(1).max(128).nullish();

export const chatRequestSchema = z.object({
  text: z.string().max(100_000).nullish(),
  type: z.string().max(50).nullish(),
  sessionId: sessionIdSchema,
  /** Accepted too: the answer calls it `session_id`. */
  session_id: sessionIdSchema,
  userId: z.string().max(200).nullish(),
  id: z.string().max(200).nullish(),
  model: z.string().max(200).nullish(),
  attachments: z
    .array(
      z.object({
        name: z.string().max(500).nullish(),
        mimeType: z.string().max(200).nullish(),
        data: z.string(),
      }),
    )
    .max(10)
    .nullish(),
});

/** A validated chat request bound to its agent, ready to run. */
export interface PreparedChat {
  env: Env;
  db: Db;
  agent: AgentRow;
  text: string;
  attachments: ModelAttachment[];
  sessionId: string;
  requestId: string | null;
  userId?: string;
  modelId: string;
  model: string;
  /** Undefined for `init`, which calls no model. */
  provider?: ChatProvider;
  tools: boolean;
}

export interface ChatAnswer {
  type: 'markdown' | 'broadcast';
  data: string;
  id: string | null;
  date: number;
  session_id: string;
  models: { model: string; label: string; selected: true | null }[];
}

/**
 * Checks everything that can be refused before a model is called, in this order: unknown agent 404,
 * disabled 403, then the body 400 (text, model, attachments). A provider this deployment lacks is 500.
 */
export async function prepareChat(
  env: Env,
  tenantCode: string,
  code: string,
  readBody: () => Promise<unknown>,
  clientIp = 'unknown',
): Promise<PreparedChat> {
  const db = createDb(env.DB);
  const agent = await requireAgent(db, tenantCode, code);
  if (!agent.enabled) throw ApiError.forbidden(`Agent configuration '${tenantCode}/${code}' is disabled`);

  const body = await parseJsonBody(readBody, chatRequestSchema);
  // Per session when the client names one, else per client address (a fresh session id per request would evade it).
  const session = body.sessionId ?? body.session_id;
  await enforceRateLimit(env, agent.rateLimit, {
    kind: 'chat',
    agentId: agent.id,
    session: session ? `session:${session}` : `ip:${clientIp}`,
  });
  const init = body.type === 'init';
  const attachmentInputs = init ? [] : (body.attachments ?? []);
  const text = body.text ?? '';

  if (!init && !text && attachmentInputs.length === 0) {
    throw ApiError.badRequest('Invalid request body', [
      { path: 'text', message: 'text is required unless type is init or attachments are sent' },
    ]);
  }
  const modelId = body.model ?? agent.defaultModel;
  const resolved = agent.llmModels.some((m) => m.model === modelId) ? resolveModel(modelId) : undefined;
  if (!resolved) {
    throw ApiError.badRequest('Invalid request body', [
      { path: 'model', message: `model must be one of ${agent.llmModels.map((m) => m.model).join(', ')}` },
    ]);
  }
  if (attachmentInputs.length && !resolved.provider.attachments) {
    throw ApiError.badRequest('Invalid request body', [{ path: 'attachments', message: `model '${modelId}' does not accept attachments` }]);
  }
  const { attachments, details } = prepareAttachments(
    attachmentInputs.map((a) => ({ name: a.name ?? undefined, mimeType: a.mimeType ?? undefined, data: a.data })),
  );
  if (details.length) throw ApiError.badRequest('Invalid request body', details);

  const settings = { openai: agent.openai };
  if (!init) {
    const unavailable = resolved.provider.unavailable(env, settings);
    if (unavailable) throw new ApiError(500, unavailable);
  }
  return {
    env,
    db,
    agent,
    text,
    attachments,
    sessionId: body.sessionId ?? body.session_id ?? crypto.randomUUID(),
    requestId: body.id ?? null,
    userId: body.userId ?? undefined,
    modelId,
    model: resolved.model,
    provider: init ? undefined : resolved.provider.create(env, settings),
    tools: Boolean(agent.searchApp) && resolved.provider.tools,
  };
}

function systemPrompt(chat: PreparedChat): string {
  return [chat.agent.systemPrompt, chat.tools ? ACTION_INSTRUCTIONS : ''].filter(Boolean).join('\n\n');
}

/**
 * Runs one chat turn, reporting reply fragments through `emit` as they arrive; answers the full reply.
 * `init` resets the session and replies with the welcome message. The turn is stored only when it succeeded.
 */
export async function runChat(chat: PreparedChat, emit: (fragment: string) => Promise<void>): Promise<string> {
  const { db, agent, sessionId, provider } = chat;
  if (!provider) {
    // init
    await resetSession(db, agent.id, sessionId);
    if (agent.welcomeMessage) await emit(agent.welcomeMessage);
    return agent.welcomeMessage;
  }

  const history = await loadHistory(db, agent.id, sessionId);
  const prompt = systemPrompt(chat);
  const messages: ChatMessage[] = [
    ...(prompt ? [{ role: 'system' as const, content: prompt }] : []),
    ...history.map((turn) => ({ role: turn.role, content: turn.text })),
    { role: 'user', content: chat.text, ...(chat.attachments.length ? { attachments: chat.attachments } : {}) },
  ];

  let reply = '';
  const collect = async (fragment: string) => {
    reply += fragment;
    await emit(fragment);
  };
  for (let call = 1; call <= MAX_MODEL_CALLS; call += 1) {
    const tools = chat.tools && call < MAX_MODEL_CALLS ? [SEARCH_TOOL] : [];
    const turn = await provider.turn({ model: chat.model, messages, tools, user: chat.userId }, collect);
    if (!turn.toolCalls.length) break;
    messages.push({ role: 'assistant', content: turn.text, toolCalls: turn.toolCalls });
    for (const toolCall of turn.toolCalls) {
      const content =
        toolCall.name === SEARCH_TOOL.name && agent.searchApp
          ? await runSearchTool(chat.env, agent.tenantCode, agent.searchApp, toolCall.arguments)
          : JSON.stringify({ error: `unknown tool '${toolCall.name}'` });
      messages.push({ role: 'tool', toolCallId: toolCall.id, content });
    }
  }

  await appendTurns(db, agent.id, sessionId, [
    ...(chat.text ? [{ role: 'user' as const, text: chat.text }] : []),
    { role: 'assistant', text: reply },
  ]);
  return reply;
}

export function chatAnswer(chat: PreparedChat, data: string, type: ChatAnswer['type'] = 'markdown'): ChatAnswer {
  return {
    type,
    data,
    id: chat.requestId,
    date: Date.now(),
    session_id: chat.sessionId,
    models: chat.agent.llmModels.map((m) => ({
      model: m.model,
      label: m.label ?? m.model,
      selected: m.model === chat.modelId ? true : null,
    })),
  };
}

/** The JSON endpoint: the whole reply in one answer; a provider failure is a 500 with a safe message. */
export async function chatOnce(chat: PreparedChat): Promise<ChatAnswer> {
  try {
    return chatAnswer(chat, await runChat(chat, async () => {}));
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    logError('agent chat failed', err, { tenant: chat.agent.tenantCode, agent: chat.agent.code, model: chat.modelId });
    throw new ApiError(500, err.message);
  }
}

/**
 * The streaming endpoint: NDJSON delta lines `{ data, streaming: true }` written as fragments arrive, then one
 * final answer with empty `data`; on failure one error delta and a final `broadcast` answer. Answers the body and
 * the promise that writes it (for `waitUntil`).
 */
export function chatStream(chat: PreparedChat): { body: ReadableStream<Uint8Array>; done: Promise<void> } {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  const line = (value: unknown) => writer.write(encoder.encode(`${JSON.stringify(value)}\n`));

  const done = (async () => {
    try {
      await runChat(chat, (fragment) => line({ data: fragment, streaming: true }));
      await line({ ...chatAnswer(chat, ''), streaming: false });
    } catch (err) {
      logError('agent chat stream failed', err, { tenant: chat.agent.tenantCode, agent: chat.agent.code, model: chat.modelId });
      const message = err instanceof ProviderError ? err.message : 'The agent failed';
      try {
        await line({ data: `\n\n${message}. Please try again.`, streaming: true });
        await line({ ...chatAnswer(chat, '', 'broadcast'), streaming: false });
      } catch {
        // The client went away; nothing is left to tell it.
      }
    }
    await writer.close().catch(() => {});
  })();
  return { body: readable, done };
}
