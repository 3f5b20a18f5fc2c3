import { ProviderError, type ChatMessage, type ModelTurn, type ProviderModule, type ToolCall } from './types';
import { sseData } from './sse';

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

function toOpenAiMessage(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user': {
      if (!message.attachments?.length) return { role: 'user', content: message.content };
      const parts: Record<string, unknown>[] = message.content ? [{ type: 'text', text: message.content }] : [];
      for (const attachment of message.attachments) {
        const dataUrl = `data:${attachment.mimeType};base64,${attachment.base64}`;
        parts.push(
          attachment.mimeType.startsWith('image/')
            ? { type: 'image_url', image_url: { url: dataUrl } }
            : { type: 'file', file: { filename: attachment.name ?? 'attachment', file_data: dataUrl } },
        );
      }
      return { role: 'user', content: parts };
    }
    case 'assistant':
      return message.toolCalls?.length
        ? {
            role: 'assistant',
            content: message.content || null,
            tool_calls: message.toolCalls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.arguments },
            })),
          }
        : { role: 'assistant', content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

interface StreamChunk {
  error?: { message?: string };
  choices?: Array<{
    delta?: {
      content?: string | null;
      tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>;
    };
  }>;
}

/** Any OpenAI-compatible Chat Completions endpoint (OpenAI, Ollama, vLLM, llama.cpp), streamed over SSE. */
export const openAiProvider: ProviderModule = {
  attachments: true,
  tools: true,
  unavailable: () => undefined,
  create(env, settings) {
    const baseUrl = (settings.openai.baseUrl ?? env.OPENAI_BASE_URL ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    const apiKey = settings.openai.apiKey ?? env.OPENAI_API_KEY;
    return {
      async turn(request, onText): Promise<ModelTurn> {
        const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'text/event-stream' };
        if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
        const body = {
          model: request.model,
          stream: true,
          messages: request.messages.map(toOpenAiMessage),
          ...(request.user ? { user: request.user } : {}),
          ...(request.tools.length ? { tools: request.tools.map((tool) => ({ type: 'function', function: tool })) } : {}),
        };
        let response: Response;
        try {
          response = await fetch(`${baseUrl}/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body) });
        } catch {
          throw new ProviderError('The model provider could not be reached');
        }
        if (!response.ok || !response.body) {
          await response.body?.cancel();
          throw new ProviderError(`The model provider answered ${response.status}`);
        }

        let text = '';
        const calls: ToolCall[] = [];
        try {
          for await (const data of sseData(response.body)) {
            const chunk = JSON.parse(data) as StreamChunk;
            if (chunk.error) throw new Error('error event');
            const delta = chunk.choices?.[0]?.delta;
            if (delta?.content) {
              text += delta.content;
              await onText(delta.content);
            }
            for (const part of delta?.tool_calls ?? []) {
              const call = (calls[part.index] ??= { id: '', name: '', arguments: '' });
              if (part.id) call.id = part.id;
              if (part.function?.name) call.name += part.function.name;
              if (part.function?.arguments) call.arguments += part.function.arguments;
            }
          }
        } catch {
          throw new ProviderError('The model provider stream failed');
        }
        return { text, toolCalls: calls.filter(Boolean) };
      },
    };
  },
};
