// Stands in for the Workers AI binding (`AI`) in tests, bound through a service binding to this entrypoint.
// `run` streams SSE like Workers AI; the reply echoes the messages it received so tests can assert them;
// FAIL_500 in the last user message makes `run` throw.
import { WorkerEntrypoint } from 'cloudflare:workers';

export class WorkersAiStandIn extends WorkerEntrypoint {
  async run(model, input) {
    const lastUser = [...input.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const fragments = ['AI ', model, ' got ', JSON.stringify(input.messages), input.stream ? ' streamed' : ' whole'];
    const encoder = new TextEncoder();
    if (lastUser.includes('FAIL_500')) throw new Error('stand-in: AiError 3040: capacity exceeded');
    return new ReadableStream({
      start(controller) {
        for (const response of fragments) controller.enqueue(encoder.encode(`data: ${JSON.stringify({ response })}\n\n`));
        controller.enqueue(encoder.encode('data: [DONE]\n\n'));
        controller.close();
      },
    });
  }
}

export default { fetch: () => new Response('Workers AI stand-in') };
