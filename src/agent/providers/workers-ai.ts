import { ProviderError, type ModelTurn, type ProviderModule } from './types';
import { sseData } from './sse';

/** The part of the Workers AI binding used here: a text-generation model streamed as SSE. */
interface TextGenerationBinding {
  run(model: string, input: { messages: { role: string; content: string }[]; stream: true }): Promise<ReadableStream<Uint8Array>>;
}

/** Workers AI through the `AI` binding: text only, no attachments, no tools. */
export const workersAiProvider: ProviderModule = {
  attachments: false,
  tools: false,
  unavailable: (env) => (env.AI ? undefined : 'Workers AI is not configured on this deployment (no AI binding)'),
  create(env) {
    const ai = env.AI as unknown as TextGenerationBinding;
    return {
      async turn(request, onText): Promise<ModelTurn> {
        const messages = request.messages.flatMap((message) =>
          message.role === 'tool' ? [] : [{ role: message.role, content: message.content }],
        );
        let text = '';
        try {
          const stream = await ai.run(request.model, { messages, stream: true });
          for await (const data of sseData(stream)) {
            const fragment = (JSON.parse(data) as { response?: string }).response;
            if (fragment) {
              text += fragment;
              await onText(fragment);
            }
          }
        } catch {
          throw new ProviderError('Workers AI failed');
        }
        return { text, toolCalls: [] };
      },
    };
  },
};
