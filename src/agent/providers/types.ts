import type { StoredOpenAiSettings } from '../../db/schema';
import type { Env } from '../../env';

/** An attachment as sent to a model: base64 content and its (given or guessed) MIME type. */
export interface ModelAttachment {
  name?: string;
  mimeType: string;
  base64: string;
}

export interface ToolCall {
  id: string;
  name: string;
  /** The JSON arguments as the model wrote them. */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string; attachments?: ModelAttachment[] }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** A function the model may call; `parameters` is a JSON schema. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ModelTurnRequest {
  /** The model id without the provider prefix. */
  model: string;
  messages: ChatMessage[];
  tools: ToolDefinition[];
  /** The end user, forwarded for the provider's abuse tracking. */
  user?: string;
}

/** What one model call produced: streamed text and, when the model wants them, tool calls. */
export interface ModelTurn {
  text: string;
  toolCalls: ToolCall[];
}

export interface ChatProvider {
  /** Calls the model once, reporting text fragments as they arrive; throws ProviderError on failure. */
  turn(request: ModelTurnRequest, onText: (fragment: string) => Promise<void>): Promise<ModelTurn>;
}

/** A failed model call; the message is safe to show (no secret, no upstream body). */
export class ProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** The agent settings a provider may use. */
export interface ProviderSettings {
  openai: StoredOpenAiSettings;
}

/** One provider, selected by the prefix of a model id; adding a provider = one module and one line in index.ts. */
export interface ProviderModule {
  /** Whether attachments may be sent to its models (else 400). */
  attachments: boolean;
  /** Whether it supports function calling (the search tool is offered only then). */
  tools: boolean;
  /** Why the provider cannot run in this environment, or undefined when it can. */
  unavailable(env: Env, settings: ProviderSettings): string | undefined;
  create(env: Env, settings: ProviderSettings): ChatProvider;
}
