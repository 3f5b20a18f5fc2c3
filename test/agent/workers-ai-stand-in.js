// Stands in for the Workers AI binding (`AI`) in tests, bound through a service binding to this entrypoint.
// Text generation (`messages`): `run` streams SSE like Workers AI; the reply echoes the messages it received so
// tests can assert them; FAIL_500 in the last user message makes `run` throw.
// Embeddings (`text`): answered `{ shape, data }` like Workers AI's embedding models, with the concept vectors of
// the Node stand-in (asked under the tag `workers-ai`, so tests read what it received at /control/embeddings/workers-ai).
import { WorkerEntrypoint } from 'cloudflare:workers';

export class WorkersAiStandIn extends WorkerEntrypoint {
  async run(model, input) {
    if (input.text) return this.embed(model, input.text);
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

  async embed(model, text) {
    const texts = Array.isArray(text) ? text : [text];
    const response = await fetch(`http://127.0.0.1:${this.env.OPENAI_STAND_IN_PORT}/t/workers-ai/v1/embeddings`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model, input: texts }),
    });
    if (!response.ok) throw new Error(`stand-in: AiError ${response.status}`);
    const data = (await response.json()).data.map((d) => d.embedding);
    return { shape: [data.length, data[0].length], data };
  }
}

export default { fetch: () => new Response('Workers AI stand-in') };
