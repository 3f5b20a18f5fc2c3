import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { prepareChat } from '../../src/agent/chat';
import { ADMIN_TOKEN, AGENT_TOKEN, call, createTenantWithApp, expectOk, json, uniqueCode } from '../helpers';
import { echoFragments, FAIL_500, FAIL_MIDSTREAM, HOLD, type ReceivedCompletion } from './openai-contract';

const STAND_IN = () => `http://127.0.0.1:${env.OPENAI_STAND_IN_PORT}`;
const API_KEY = 'sk-stand-in-secret-key';
const SYSTEM_PROMPT = 'You are the package assistant.';
const WELCOME = 'Hello! Ask me about packages.';

// 1x1 PNG and the first bytes of a PDF.
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PDF_BASE64 = btoa('%PDF-1.4\n%stand-in\n');

function agentConfig(tag: string, overrides: Record<string, unknown> = {}) {
  return {
    llm_models: [
      { model: 'openai:gpt-4o-mini', label: 'GPT-4o mini' },
      { model: 'openai:llama3' },
      { model: 'workers-ai:@cf/meta/llama-3.1-8b-instruct', label: 'Llama on Workers AI' },
    ],
    default_model: 'openai:gpt-4o-mini',
    welcome_message: WELCOME,
    system_prompt: SYSTEM_PROMPT,
    openai: { baseUrl: `${STAND_IN()}/t/${tag}/v1`, apiKey: API_KEY },
    ...overrides,
  };
}

/** A tenant (with search app `catalog`) and an agent `helper` whose OpenAI endpoint is the stand-in under a fresh tag. */
async function createAgent(overrides: Record<string, unknown> = {}) {
  const { tenant } = await createTenantWithApp('agent');
  const tag = uniqueCode('tag');
  await expectOk(call('PUT', `/api/v1/admin/agents/${tenant}/helper`, { token: ADMIN_TOKEN, body: agentConfig(tag, overrides) }));
  return { tenant, code: 'helper', tag };
}

function chat(tenant: string, code: string, body: unknown, token: string | undefined = AGENT_TOKEN) {
  return call('POST', `/api/v1/agent/chat/${tenant}/${code}`, { token, body });
}

function chatStreaming(tenant: string, code: string, body: unknown, headers: Record<string, string> = {}) {
  return call('POST', `/api/v1/agent/chat/streaming/${tenant}/${code}`, { token: AGENT_TOKEN, body, headers });
}

async function received(tag: string): Promise<ReceivedCompletion[]> {
  return (await fetch(`${STAND_IN()}/control/received/${tag}`)).json();
}

async function ndjson(res: Response): Promise<any[]> {
  const text = await res.text();
  expect(text.endsWith('\n')).toBe(true);
  return text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line));
}

const models = (selected: string) =>
  [
    { model: 'openai:gpt-4o-mini', label: 'GPT-4o mini' },
    { model: 'openai:llama3', label: 'openai:llama3' },
    { model: 'workers-ai:@cf/meta/llama-3.1-8b-instruct', label: 'Llama on Workers AI' },
  ].map((m) => ({ ...m, selected: m.model === selected ? true : null }));

const expectDate = () => expect.any(Number);

describe('agent configuration (admin)', () => {
  it('stores a configuration, answers the API key as *** and keeps it when a PUT omits it', async () => {
    const { tenant, tag } = await createAgent();
    const view = await json(await expectOk(call('GET', `/api/v1/admin/agents/${tenant}/helper`, { token: ADMIN_TOKEN })));
    expect(view).toMatchObject({
      llm_models: agentConfig(tag).llm_models,
      default_model: 'openai:gpt-4o-mini',
      welcome_message: WELCOME,
      system_prompt: SYSTEM_PROMPT,
      search_app: null,
      enabled: true,
      openai: { baseUrl: `${STAND_IN()}/t/${tag}/v1`, apiKey: '***' },
    });
    const { openai, ...rest } = agentConfig(tag);
    const res = await expectOk(
      call('PUT', `/api/v1/admin/agents/${tenant}/helper`, { token: ADMIN_TOKEN, body: { ...rest, openai: { baseUrl: openai.baseUrl } } }),
    );
    expect(JSON.stringify(await json(res))).not.toContain(API_KEY);
    await expectOk(chat(tenant, 'helper', { text: 'hi' }));
    expect((await received(tag))[0].authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('refuses a PUT without the root token, for an unknown tenant, and with invalid fields', async () => {
    const { tenant } = await createTenantWithApp('agent');
    const put = (t: string, body: unknown, token = ADMIN_TOKEN) => call('PUT', `/api/v1/admin/agents/${t}/helper`, { token, body });
    expect((await put(tenant, agentConfig('x'), AGENT_TOKEN)).status).toBe(401);
    expect((await put(uniqueCode('missing'), agentConfig('x'))).status).toBe(404);

    const invalid = await put(tenant, agentConfig('x', { llm_models: [{ model: 'acme:gpt' }], default_model: 'openai:other' }));
    expect(invalid.status).toBe(400);
    const paths = (await json(invalid)).details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['llm_models.0.model', 'default_model']));

    const noApp = await put(tenant, agentConfig('x', { search_app: 'nope' }));
    expect(noApp.status).toBe(400);
    expect((await json(noApp)).details).toEqual([{ path: 'search_app', message: `search app '${tenant}/nope' not found` }]);
  });
});

describe('chat: refusals', () => {
  it('answers 401 without or with a wrong agent token', async () => {
    const { tenant, code } = await createAgent();
    expect((await call('POST', `/api/v1/agent/chat/${tenant}/${code}`, { body: { text: 'hi' } })).status).toBe(401);
    expect((await chat(tenant, code, { text: 'hi' }, 'wrong-token')).status).toBe(401);
    expect((await chat(tenant, code, { text: 'hi' }, ADMIN_TOKEN)).status).toBe(401);
    const streamed = await call('POST', `/api/v1/agent/chat/streaming/${tenant}/${code}`, { token: 'wrong', body: { text: 'hi' } });
    expect(streamed.status).toBe(401);
  });

  it('answers 404 for an unknown configuration and 403 for a disabled one', async () => {
    const { tenant, code, tag } = await createAgent({ enabled: false });
    const missing = await chat(tenant, 'nobody', { text: 'hi' });
    expect(missing.status).toBe(404);
    expect(await json(missing)).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: `Agent configuration '${tenant}/nobody' not found`,
    });
    expect((await chat(uniqueCode('ghost'), code, { text: 'hi' })).status).toBe(404);
    const disabled = await chat(tenant, code, { text: 'hi' });
    expect(disabled.status).toBe(403);
    expect((await chatStreaming(tenant, code, { type: 'init' })).status).toBe(403);
    expect(await received(tag)).toEqual([]);
  });

  it('answers 400 with details for each invalid request, before any model call', async () => {
    const { tenant, code, tag } = await createAgent();
    const cases: Array<[unknown, string, string]> = [
      [{}, 'text', 'text is required unless type is init or attachments are sent'],
      [{ text: '' }, 'text', 'text is required unless type is init or attachments are sent'],
      [
        { text: 'hi', model: 'openai:gpt-5' },
        'model',
        'model must be one of openai:gpt-4o-mini, openai:llama3, workers-ai:@cf/meta/llama-3.1-8b-instruct',
      ],
      [{ attachments: [{ data: 'not base64!' }] }, 'attachments.0.data', 'attachment data is not valid base64'],
      [{ attachments: [{ data: 'abc' }] }, 'attachments.0.data', 'attachment data is not valid base64'],
      [{ attachments: [{ data: '' }] }, 'attachments.0.data', 'attachment data is empty'],
      [{ text: 'hi', attachments: [{ data: PNG_BASE64 }, { data: '' }] }, 'attachments.1.data', 'attachment data is empty'],
      [
        { text: 'look', model: 'workers-ai:@cf/meta/llama-3.1-8b-instruct', attachments: [{ data: PNG_BASE64 }] },
        'attachments',
        "model 'workers-ai:@cf/meta/llama-3.1-8b-instruct' does not accept attachments",
      ],
      [{ text: 42 }, 'text', expect.any(String) as unknown as string],
    ];
    for (const [body, path, message] of cases) {
      for (const send of [chat, chatStreaming]) {
        const res = await send(tenant, code, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect((await json(res)).details).toEqual([{ path, message }]);
      }
    }
    const malformed = await call('POST', `/api/v1/agent/chat/${tenant}/${code}`, {
      token: AGENT_TOKEN,
      rawBody: '{"text":',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(await received(tag)).toEqual([]);
  });

  it('refuses an attachment of 11 MB decoded and accepts one byte less', async () => {
    const { tenant, code, tag } = await createAgent();
    const limit = 11 * 1024 * 1024; // 3 × 3,844,778 + 2: the last base64 quad carries 2 bytes ('=') or 1 ('==')
    const quads = 'A'.repeat(Math.ceil(limit / 3) * 4 - 4);
    const atLimit = `${quads}AAA=`;
    const res = await chat(tenant, code, { text: 'big', attachments: [{ mimeType: 'application/pdf', data: atLimit }] });
    expect(res.status).toBe(400);
    expect((await json(res)).details).toEqual([
      { path: 'attachments.0.data', message: `attachment is ${limit} bytes decoded; the limit is under ${limit}` },
    ]);
    expect(await received(tag)).toEqual([]);

    const justUnder = `${quads}AA==`;
    expect((await chat(tenant, code, { text: 'big', attachments: [{ mimeType: 'application/pdf', data: justUnder }] })).status).toBe(200);
    const [request] = await received(tag);
    expect((request.body.messages[1].content as any[])[1].file.file_data).toBe(`data:application/pdf;base64,${justUnder}`);
  });
});

describe('chat: JSON endpoint', () => {
  it('init answers the welcome message and the models, creates a session id and calls no model', async () => {
    const { tenant, code, tag } = await createAgent();
    const res = await chat(tenant, code, { type: 'init', id: 'm-1' });
    expect(res.status).toBe(200);
    const answer = await json(res);
    expect(Object.keys(answer)).toEqual(['type', 'data', 'id', 'date', 'session_id', 'models']);
    expect(answer).toEqual({
      type: 'markdown',
      data: WELCOME,
      id: 'm-1',
      date: expectDate(),
      session_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      models: models('openai:gpt-4o-mini'),
    });
    expect(Math.abs(answer.date - Date.now())).toBeLessThan(60_000);

    const again = await json(await chat(tenant, code, { type: 'init', sessionId: 'my-session', model: 'openai:llama3' }));
    expect(again).toMatchObject({ session_id: 'my-session', id: null, models: models('openai:llama3') });
    expect(await received(tag)).toEqual([]);
  });

  it('sends the system prompt and replays earlier text turns of the session; init starts over', async () => {
    const { tenant, code, tag } = await createAgent();
    const { session_id } = await json(await chat(tenant, code, { type: 'init' }));

    const first = await json(await chat(tenant, code, { text: 'first question', sessionId: session_id, id: 'q1' }));
    const firstReply = echoFragments('first question', 2).join('');
    expect(first).toEqual({
      type: 'markdown',
      data: firstReply,
      id: 'q1',
      date: expectDate(),
      session_id,
      models: models('openai:gpt-4o-mini'),
    });

    const second = await json(await chat(tenant, code, { text: 'second question', session_id, model: 'openai:llama3', userId: 'user-7' }));
    expect(second.data).toBe(echoFragments('second question', 4).join(''));
    expect(second.models).toEqual(models('openai:llama3'));

    await chat(tenant, code, { type: 'init', sessionId: session_id });
    await chat(tenant, code, { text: 'after reset', sessionId: session_id });

    const requests = await received(tag);
    expect(requests).toHaveLength(3);
    expect(requests.map((r) => r.body.model)).toEqual(['gpt-4o-mini', 'llama3', 'gpt-4o-mini']);
    expect(requests.map((r) => r.body.user)).toEqual([undefined, 'user-7', undefined]);
    expect(requests.every((r) => r.body.stream === true && r.authorization === `Bearer ${API_KEY}` && !r.body.tools)).toBe(true);
    expect(requests[1].body.messages).toEqual([
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: firstReply },
      { role: 'user', content: 'second question' },
    ]);
    expect(requests[2].body.messages).toEqual([
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: 'after reset' },
    ]);
  });

  it('creates a session when none is sent, and sessions of two agents do not mix', async () => {
    const { tenant, code, tag } = await createAgent();
    const first = await json(await chat(tenant, code, { text: 'one' }));
    expect(first.session_id).toMatch(/^[0-9a-f-]{36}$/);
    await expectOk(call('PUT', `/api/v1/admin/agents/${tenant}/other`, { token: ADMIN_TOKEN, body: agentConfig(tag) }));
    await chat(tenant, 'other', { text: 'two', sessionId: first.session_id });
    const requests = await received(tag);
    expect(requests[1].body.messages).toEqual([
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: 'two' },
    ]);
  });

  it('sends images as image_url parts and other files as file parts, guessing missing types; attachments are not replayed', async () => {
    const { tenant, code, tag } = await createAgent();
    const gif = btoa('GIF89a\x01\x00\x01\x00');
    const webp = btoa('RIFF\x00\x00\x00\x00WEBPVP8 ');
    const jpeg = btoa('\xff\xd8\xff\xe0\x00\x10JFIF');
    const first = await json(
      await chat(tenant, code, {
        text: 'what is this?',
        attachments: [
          { data: PNG_BASE64, name: 'ignored.png' },
          { data: jpeg },
          { data: gif },
          { data: webp },
          { data: PDF_BASE64, name: 'manual.pdf' },
          { data: btoa('plain words'), mimeType: 'text/plain', name: 'notes.txt' },
          { data: btoa('\x00\x01\x02\x03') },
        ],
      }),
    );
    await chat(tenant, code, { text: 'and now?', sessionId: first.session_id });
    const [withFiles, next] = await received(tag);
    expect(withFiles.body.messages[1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
        { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${jpeg}` } },
        { type: 'image_url', image_url: { url: `data:image/gif;base64,${gif}` } },
        { type: 'image_url', image_url: { url: `data:image/webp;base64,${webp}` } },
        { type: 'file', file: { filename: 'manual.pdf', file_data: `data:application/pdf;base64,${PDF_BASE64}` } },
        { type: 'file', file: { filename: 'notes.txt', file_data: `data:text/plain;base64,${btoa('plain words')}` } },
        { type: 'file', file: { filename: 'attachment', file_data: `data:application/octet-stream;base64,${btoa('\x00\x01\x02\x03')}` } },
      ],
    });
    expect(next.body.messages).toEqual([
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: 'what is this?' },
      { role: 'assistant', content: first.data },
      { role: 'user', content: 'and now?' },
    ]);
  });

  it('accepts attachments without text', async () => {
    const { tenant, code, tag } = await createAgent();
    const res = await chat(tenant, code, { attachments: [{ data: PNG_BASE64, mimeType: 'image/png' }] });
    expect(res.status).toBe(200);
    const [request] = await received(tag);
    expect(request.body.messages[1].content).toEqual([{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } }]);
  });

  it('answers 500 in the error shape, without the API key, when the provider fails', async () => {
    const { tenant, code } = await createAgent();
    for (const text of [FAIL_500, FAIL_MIDSTREAM]) {
      const res = await chat(tenant, code, { text });
      expect(res.status).toBe(500);
      const body = await res.text();
      expect(body).not.toContain(API_KEY);
      expect(JSON.parse(body)).toEqual({
        statusCode: 500,
        error: 'Internal Server Error',
        message: text === FAIL_500 ? 'The model provider answered 500' : 'The model provider stream failed',
      });
    }
    const unreachable = await createAgent({ openai: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: API_KEY } });
    const res = await chat(unreachable.tenant, unreachable.code, { text: 'hi' });
    expect(res.status).toBe(500);
    expect(await json(res)).toMatchObject({ message: 'The model provider could not be reached' });
  });
});

describe('chat: streaming endpoint', () => {
  it('streams one delta line per provider fragment, then exactly one final answer with empty data', async () => {
    const { tenant, code, tag } = await createAgent();
    const res = await chatStreaming(tenant, code, { text: 'stream me', id: 's-1', sessionId: 'stream-session' });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/json');
    const lines = await ndjson(res);
    const fragments = echoFragments('stream me', 2);
    expect(lines).toEqual([
      ...fragments.map((data) => ({ data, streaming: true })),
      {
        type: 'markdown',
        data: '',
        id: 's-1',
        date: expectDate(),
        session_id: 'stream-session',
        models: models('openai:gpt-4o-mini'),
        streaming: false,
      },
    ]);
    expect(Object.keys(lines[lines.length - 1])).toEqual(['type', 'data', 'id', 'date', 'session_id', 'models', 'streaming']);

    // The streamed reply was stored like a JSON one.
    await chat(tenant, code, { text: 'next', sessionId: 'stream-session' });
    expect((await received(tag))[1].body.messages.slice(1, 3)).toEqual([
      { role: 'user', content: 'stream me' },
      { role: 'assistant', content: fragments.join('') },
    ]);
  });

  it('writes delta lines as the provider sends them, not at the end, also to a client accepting compression', async () => {
    const { tenant, code, tag } = await createAgent();
    const res = await chatStreaming(tenant, code, { text: `${HOLD} please` }, { 'Accept-Encoding': 'gzip, deflate, br' });
    // `identity` is what stops wrangler dev and Cloudflare from gzipping (and so buffering) the stream.
    expect(res.headers.get('Content-Encoding')).toBe('identity');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('\n')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended early');
      text += value;
    }
    // The stand-in holds the rest of its reply until released: the first line arrived on its own.
    expect(text).toBe(`${JSON.stringify({ data: 'Echo', streaming: true })}\n`);
    await expectOk(fetch(`${STAND_IN()}/control/release/${tag}`, { method: 'POST' }));
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((l) => l.data)).toEqual([...echoFragments(`${HOLD} please`, 2), '']);
    expect(lines[lines.length - 1].streaming).toBe(false);
  });

  it('on a mid-stream failure writes one error delta and a final broadcast line, and stores nothing', async () => {
    const { tenant, code, tag } = await createAgent();
    const res = await chatStreaming(tenant, code, { text: FAIL_MIDSTREAM, sessionId: 'broken', id: 'b-1' });
    expect(res.status).toBe(200);
    const lines = await ndjson(res);
    expect(lines).toEqual([
      { data: 'Echo', streaming: true },
      { data: ': ', streaming: true },
      { data: '\n\nThe model provider stream failed. Please try again.', streaming: true },
      {
        type: 'broadcast',
        data: '',
        id: 'b-1',
        date: expectDate(),
        session_id: 'broken',
        models: models('openai:gpt-4o-mini'),
        streaming: false,
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain(API_KEY);

    const failedBeforeFirstToken = await ndjson(await chatStreaming(tenant, code, { text: FAIL_500, sessionId: 'broken' }));
    expect(failedBeforeFirstToken).toEqual([
      { data: '\n\nThe model provider answered 500. Please try again.', streaming: true },
      expect.objectContaining({ type: 'broadcast', data: '', session_id: 'broken', streaming: false }),
    ]);

    await chat(tenant, code, { text: 'still there?', sessionId: 'broken' });
    expect((await received(tag)).at(-1)!.body.messages).toEqual([
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: 'still there?' },
    ]);
  });

  it('init answers the welcome message as a single streamed turn', async () => {
    const { tenant, code, tag } = await createAgent();
    const lines = await ndjson(await chatStreaming(tenant, code, { type: 'init', id: 'i-1' }));
    expect(lines).toEqual([
      { data: WELCOME, streaming: true },
      {
        type: 'markdown',
        data: '',
        id: 'i-1',
        date: expectDate(),
        session_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        models: models('openai:gpt-4o-mini'),
        streaming: false,
      },
    ]);
    expect(await received(tag)).toEqual([]);
  });
});

describe('chat: grounding in the search app', () => {
  it("offers the search tool, sends the model's search call to the search app and feeds the outcome back as a tool message", async () => {
    const { tenant, code, tag } = await createAgent({ search_app: 'catalog' });
    const lines = await ndjson(await chatStreaming(tenant, code, { text: 'SEARCH:zlib please', sessionId: 'grounded' }));
    const [first, second] = await received(tag);

    expect(first.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'search',
          description: expect.any(String),
          parameters: expect.objectContaining({ type: 'object', required: ['q'] }),
        },
      },
    ]);
    expect(first.body.messages[0]).toEqual({
      role: 'system',
      content: expect.stringContaining('[[SVCACTION]]{"action":"open","id":"<document id>"}'),
    });
    expect((first.body.messages[0].content as string).startsWith(`${SYSTEM_PROMPT}\n\n`)).toBe(true);

    expect(second.body.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"q":"zlib"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: expect.any(String) },
    ]);
    const toolResult = second.body.messages[3].content as string;
    expect(typeof JSON.parse(toolResult)).toBe('object');
    expect(second.body.tools).toHaveLength(1);

    expect(lines).toEqual([
      { data: 'Search said: ', streaming: true },
      { data: toolResult, streaming: true },
      expect.objectContaining({ type: 'markdown', data: '', session_id: 'grounded', streaming: false }),
    ]);
  });

  it('offers no tool when the configuration names no search app', async () => {
    const { tenant, code, tag } = await createAgent();
    const answer = await json(await chat(tenant, code, { text: 'SEARCH:zlib' }));
    expect(answer.data).toBe(echoFragments('SEARCH:zlib', 2).join(''));
    const [request] = await received(tag);
    expect(request.body.tools).toBeUndefined();
    expect(request.body.messages[0]).toEqual({ role: 'system', content: SYSTEM_PROMPT });
  });
});

describe('chat: workers-ai provider', () => {
  const WORKERS_AI = 'workers-ai:@cf/meta/llama-3.1-8b-instruct';

  it('streams the Workers AI reply and sends the history as text messages, without tools', async () => {
    const { tenant, code } = await createAgent({ search_app: 'catalog', default_model: WORKERS_AI });
    await chat(tenant, code, { type: 'init', sessionId: 'wai' });
    const first = await json(await chat(tenant, code, { text: 'hello', sessionId: 'wai' }));
    const firstMessages = [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: 'hello' },
    ];
    expect(first.data).toBe(`AI @cf/meta/llama-3.1-8b-instruct got ${JSON.stringify(firstMessages)} streamed`);
    expect(first.models).toEqual(models(WORKERS_AI));

    const lines = await ndjson(await chatStreaming(tenant, code, { text: 'again', sessionId: 'wai' }));
    const secondMessages = [...firstMessages, { role: 'assistant', content: first.data }, { role: 'user', content: 'again' }];
    expect(lines).toEqual([
      { data: 'AI ', streaming: true },
      { data: '@cf/meta/llama-3.1-8b-instruct', streaming: true },
      { data: ' got ', streaming: true },
      { data: JSON.stringify(secondMessages), streaming: true },
      { data: ' streamed', streaming: true },
      expect.objectContaining({ type: 'markdown', data: '', session_id: 'wai', streaming: false }),
    ]);
  });

  it('reports a Workers AI failure like any provider failure', async () => {
    const { tenant, code } = await createAgent({ default_model: WORKERS_AI });
    const res = await chat(tenant, code, { text: FAIL_500 });
    expect(res.status).toBe(500);
    expect(await json(res)).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'Workers AI failed' });
    expect(await ndjson(await chatStreaming(tenant, code, { text: FAIL_500 }))).toEqual([
      { data: '\n\nWorkers AI failed. Please try again.', streaming: true },
      expect.objectContaining({ type: 'broadcast', data: '', streaming: false }),
    ]);
  });

  it('answers 500 with a clear message on a deployment without the AI binding', async () => {
    const { tenant, code } = await createAgent();
    const withoutAi = { ...env, AI: undefined };
    const body = async () => ({ text: 'hi', model: WORKERS_AI });
    await expect(prepareChat(withoutAi, tenant, code, body)).rejects.toMatchObject({
      status: 500,
      message: 'Workers AI is not configured on this deployment (no AI binding)',
    });
    const init = await prepareChat(withoutAi, tenant, code, async () => ({ type: 'init', model: WORKERS_AI }));
    expect(init.provider).toBeUndefined();
  });
});
