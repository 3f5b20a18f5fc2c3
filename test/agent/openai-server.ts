// vitest globalSetup, runs in Node: an OpenAI-compatible Chat Completions server on 127.0.0.1 that streams SSE,
// calls tools and fails on demand (see openai-contract.ts), and an embeddings endpoint whose vectors carry
// meaning (test/search/concept-vectors.ts). Base URL per test: `http://127.0.0.1:<port>/t/<tag>/v1`;
// `GET /control/received/<tag>` answers every chat request received under that tag, `GET /control/embeddings/<tag>`
// every embeddings request; `POST /control/fail-embeddings/<tag>` with `{ "times", "status" }` makes the next
// `times` embeddings requests of the tag answer `status`. The embeddings model `ignores-dimensions` ignores `dimensions`.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { conceptVector } from '../search/concept-vectors';
import { echoFragments, FAIL_500, FAIL_MIDSTREAM, HOLD, SEARCH, type ReceivedCompletion } from './openai-contract';

declare module 'vitest' {
  interface ProvidedContext {
    openAiStandInPort: number;
  }
}

const received = new Map<string, ReceivedCompletion[]>();
const embeddingsReceived = new Map<string, Array<{ authorization?: string; body: any }>>();
const embeddingFailures = new Map<string, { times: number; status: number }>();
const holds = new Map<string, { release: () => void; released: Promise<void> }>();
/** Whether requests are kept for `/control/…` (the benchmark's hundreds of large calls are not). */
let recording = true;

function holdFor(tag: string) {
  let hold = holds.get(tag);
  if (!hold) {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    hold = { release, released };
    holds.set(tag, hold);
  }
  return hold;
}

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return `data: ${JSON.stringify({ id: 'chatcmpl-stand-in', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .filter((p) => p.type === 'text')
      .map((p) => p.text)
      .join(' ');
  return '';
}

async function complete(tag: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJson(req);
  const list = received.get(tag) ?? [];
  list.push({ authorization: req.headers.authorization, body });
  received.set(tag, list);

  const messages: ReceivedCompletion['body']['messages'] = body.messages;
  const last = messages[messages.length - 1];
  const lastUser = textOf([...messages].reverse().find((m) => m.role === 'user')?.content);
  if (lastUser.includes(FAIL_500)) return answer(res, 500, { error: { message: 'stand-in failure' } });

  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  const search = new RegExp(`${SEARCH}(\\S+)`).exec(lastUser);
  if (last.role === 'user' && search && body.tools?.length) {
    const args = JSON.stringify({ q: search[1] });
    const half = Math.floor(args.length / 2);
    res.write(
      chunk({
        role: 'assistant',
        content: null,
        tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'search', arguments: '' } }],
      }),
    );
    res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, half) } }] }));
    res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] }));
    res.write(chunk({}, 'tool_calls'));
    res.end('data: [DONE]\n\n');
    return;
  }
  if (last.role === 'tool') {
    const result = JSON.parse(textOf(last.content));
    const found: { id: string } | undefined = result.documents?.[0];
    res.write(chunk({ role: 'assistant', content: found ? `Found ${found.id} ` : 'Search said: ' }));
    res.write(chunk({ content: found ? `[[SVCACTION]]${JSON.stringify({ action: 'open', id: found.id })}` : textOf(last.content) }));
    res.write(chunk({}, 'stop'));
    res.end('data: [DONE]\n\n');
    return;
  }
  const fragments = echoFragments(lastUser, messages.length);
  if (lastUser.includes(FAIL_MIDSTREAM)) {
    res.write(chunk({ role: 'assistant', content: fragments[0] }));
    // Both chunks are flushed before the connection drops.
    await new Promise((resolve) => res.write(chunk({ content: fragments[1] }), resolve));
    res.destroy();
    return;
  }
  for (const [i, fragment] of fragments.entries()) {
    res.write(chunk(i === 0 ? { role: 'assistant', content: fragment } : { content: fragment }));
    if (i === 0 && lastUser.includes(HOLD)) await holdFor(tag).released;
  }
  res.write(chunk({}, 'stop'));
  res.end('data: [DONE]\n\n');
}

async function embed(tag: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJson(req);
  const list = embeddingsReceived.get(tag) ?? [];
  if (recording) list.push({ authorization: req.headers.authorization, body });
  embeddingsReceived.set(tag, list);
  const failure = embeddingFailures.get(tag);
  if (failure && failure.times > 0) {
    failure.times -= 1;
    return answer(res, failure.status, { error: { message: `stand-in embedding failure ${failure.status}` } });
  }
  const inputs: string[] = typeof body.input === 'string' ? [body.input] : body.input;
  // The model `ignores-dimensions` answers its own 384 dimensions whatever is asked, as servers without the option do.
  const dimensions = body.model === 'ignores-dimensions' ? undefined : body.dimensions;
  answer(res, 200, {
    object: 'list',
    model: body.model,
    data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: conceptVector(text, dimensions) })),
    usage: { prompt_tokens: 0, total_tokens: 0 },
  });
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const embeddings = /^\/t\/([^/]+)\/v1\/embeddings$/.exec(url.pathname);
  if (req.method === 'POST' && embeddings) return embed(embeddings[1], req, res);
  const embeddingControl = /^\/control\/(embeddings|fail-embeddings)\/([^/]+)$/.exec(url.pathname);
  if (embeddingControl?.[1] === 'embeddings') return answer(res, 200, embeddingsReceived.get(embeddingControl[2]) ?? []);
  if (embeddingControl?.[1] === 'fail-embeddings' && req.method === 'POST') {
    embeddingFailures.set(embeddingControl[2], await readJson(req));
    return answer(res, 200, {});
  }
  const completion = /^\/t\/([^/]+)\/v1\/chat\/completions$/.exec(url.pathname);
  if (req.method === 'POST' && completion) return complete(completion[1], req, res);
  const control = /^\/control\/(received|release)\/([^/]+)$/.exec(url.pathname);
  if (control?.[1] === 'received') return answer(res, 200, received.get(control[2]) ?? []);
  if (control?.[1] === 'release' && req.method === 'POST') {
    holdFor(control[2]).release();
    return answer(res, 200, {});
  }
  answer(res, 404, { error: { message: 'no such stand-in route' } });
}

/** Starts the stand-in on a free port of 127.0.0.1 (also used by `npm run bench`, bundled for Node, with `record: false`). */
export async function startOpenAiStandIn({ record = true } = {}): Promise<{ port: number; close(): Promise<void> }> {
  recording = record;
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => answer(res, 500, { error: { message: String(error) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      holds.forEach((hold) => hold.release());
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export default async function setup(project: TestProject) {
  const standIn = await startOpenAiStandIn();
  project.provide('openAiStandInPort', standIn.port);
  return () => standIn.close();
}
