import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { embedEach, embeddingProvider, EmbeddingError, embedTexts, type RetryPolicy } from '../../src/search/embedding/providers';
import { ADMIN_TOKEN, call, createTenantWithApp, json, uniqueCode } from '../helpers';
import { embeddingsReceived, failEmbeddings, standInBaseUrl } from './stand-in';

const FAST: RetryPolicy = { attempts: 4, baseDelayMs: 1 };

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot;
}

describe('embedder configuration', () => {
  it('stores an OpenAI-compatible embedder, answers its key as *** and keeps the key when a PUT omits it', async () => {
    const { tenant, code } = await createTenantWithApp('emb');
    const path = `/api/v1/admin/searchapps/${tenant}/${code}`;
    const embedder = { provider: 'openai', model: 'text-embedding-3-small', baseUrl: 'http://127.0.0.1:11434/v1', dimensions: 384 };
    let res = await call('PUT', path, {
      token: ADMIN_TOKEN,
      body: { embedder: { ...embedder, apiKey: 'sk-secret' }, defaultSemanticRatio: 0.7 },
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ embedder: { ...embedder, apiKey: '***' }, defaultSemanticRatio: 0.7 });

    res = await call('PUT', path, { token: ADMIN_TOKEN, body: { embedder: { ...embedder, model: 'nomic-embed-text' } } });
    expect(await json(res)).toMatchObject({ embedder: { model: 'nomic-embed-text', apiKey: '***' }, defaultSemanticRatio: 0.7 });
    const row = await env.DB.prepare('SELECT embedder FROM search_apps WHERE tenant_code = ?').bind(tenant).first<{ embedder: string }>();
    expect(JSON.parse(row!.embedder).apiKey).toBe('sk-secret');

    // A PUT without `embedder` leaves it alone; `null` removes it.
    res = await call('PUT', path, { token: ADMIN_TOKEN, body: { name: 'Renamed' } });
    expect(await json(res)).toMatchObject({ name: 'Renamed', embedder: { model: 'nomic-embed-text', apiKey: '***' } });
    res = await call('PUT', path, { token: ADMIN_TOKEN, body: { embedder: null } });
    expect(await json(res)).toMatchObject({ embedder: null, defaultSemanticRatio: 0.7 });
  });

  it('stores a Workers AI embedder; a new app has no embedder and a default ratio of 0.5', async () => {
    const { tenant } = await createTenantWithApp('emb');
    const path = `/api/v1/admin/searchapps/${tenant}/other`;
    let res = await call('PUT', path, { token: ADMIN_TOKEN, body: {} });
    expect(await json(res)).toMatchObject({ embedder: null, defaultSemanticRatio: 0.5 });
    const embedder = { provider: 'workers-ai', model: '@cf/baai/bge-small-en-v1.5' };
    res = await call('PUT', path, { token: ADMIN_TOKEN, body: { embedder } });
    expect(await json(res)).toMatchObject({ embedder });
  });

  it('rejects an invalid embedder or ratio with details, changing nothing', async () => {
    const { tenant, code } = await createTenantWithApp('emb');
    const path = `/api/v1/admin/searchapps/${tenant}/${code}`;
    const cases: Array<[unknown, string]> = [
      [{ embedder: { provider: 'cohere', model: 'x' } }, 'embedder.provider'],
      [{ embedder: { provider: 'openai' } }, 'embedder.model'],
      [{ embedder: { provider: 'openai', model: 'm', baseUrl: 'ftp://x' } }, 'embedder.baseUrl'],
      [{ embedder: { provider: 'openai', model: 'm', dimensions: 0 } }, 'embedder.dimensions'],
      [{ embedder: { provider: 'workers-ai', model: 'm', apiKey: 'k' } }, 'embedder'],
      [{ defaultSemanticRatio: 1.5 }, 'defaultSemanticRatio'],
      [{ defaultSemanticRatio: '0.5' }, 'defaultSemanticRatio'],
    ];
    for (const [body, path_] of cases) {
      const res = await call('PUT', path, { token: ADMIN_TOKEN, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await json(res)).details.map((d: { path: string }) => d.path)).toContain(path_);
    }
    const row = await env.DB.prepare('SELECT embedder, default_semantic_ratio AS ratio FROM search_apps WHERE tenant_code = ?')
      .bind(tenant)
      .first();
    expect(row).toEqual({ embedder: null, ratio: 0.5 });
  });
});

describe('embedding providers', () => {
  it('OpenAI-compatible: batches texts, sends model, dimensions and key, and answers vectors that carry meaning', async () => {
    const tag = uniqueCode('emb');
    const provider = embeddingProvider(env, { provider: 'openai', model: 'm', baseUrl: standInBaseUrl(tag), apiKey: 'k1', dimensions: 64 });
    const texts = Array.from({ length: 300 }, (_, i) => `document ${i}`);
    texts[0] = 'a fast car';
    texts[1] = 'an automobile';
    texts[2] = 'music player';
    const vectors = await embedTexts(provider, texts, FAST);
    expect(vectors).toHaveLength(300);
    expect(vectors[0]).toHaveLength(64);
    expect(cosine(vectors[0], vectors[1])).toBeGreaterThan(0.8);
    expect(cosine(vectors[0], vectors[2])).toBeLessThan(0.3);
    const received = await embeddingsReceived(tag);
    expect(received.map((r) => r.body.input.length)).toEqual([256, 44]);
    expect(received[0]).toMatchObject({ authorization: 'Bearer k1', body: { model: 'm', dimensions: 64 } });
  });

  it('retries a failing call with backoff, and gives up with the provider reason', async () => {
    const tag = uniqueCode('emb');
    const provider = embeddingProvider(env, { provider: 'openai', model: 'm', baseUrl: standInBaseUrl(tag) });
    await failEmbeddings(tag, 2, 503);
    expect(await embedTexts(provider, ['car'], FAST)).toHaveLength(1);
    expect(await embeddingsReceived(tag)).toHaveLength(3);

    await failEmbeddings(tag, 10, 500);
    const error = await embedTexts(provider, ['car'], FAST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingError);
    expect((error as Error).message).toMatch(/^embedding provider answered 500: .*stand-in embedding failure 500/);
    expect(await embeddingsReceived(tag)).toHaveLength(3 + 4);

    // A 4xx other than 408/429 is not retried.
    await failEmbeddings(tag, 10, 401);
    await expect(embedTexts(provider, ['car'], FAST)).rejects.toThrow(/answered 401/);
    expect(await embeddingsReceived(tag)).toHaveLength(3 + 4 + 1);
  });

  it('refuses vectors of other dimensions than the embedder asks for, without retrying', async () => {
    const tag = uniqueCode('emb');
    const provider = embeddingProvider(env, {
      provider: 'openai',
      model: 'ignores-dimensions',
      baseUrl: standInBaseUrl(tag),
      dimensions: 64,
    });
    const error = await embedTexts(provider, ['car'], FAST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingError);
    expect((error as Error).message).toMatch(/^embedding provider answered 384-dimension vectors; the embedder asks for 64/);
    expect(await embeddingsReceived(tag)).toHaveLength(1);
  });

  it('fails only the texts of a call that failed after its retries; the other calls still embed', async () => {
    const tag = uniqueCode('emb');
    const provider = embeddingProvider(env, { provider: 'openai', model: 'm', baseUrl: standInBaseUrl(tag) });
    await failEmbeddings(tag, 4, 500); // every attempt of the first call
    const outcomes = await embedEach(
      provider,
      Array.from({ length: 300 }, (_, i) => `document ${i}`),
      FAST,
    );
    expect(outcomes.slice(0, 256).every((o) => o instanceof EmbeddingError && /answered 500/.test(o.message))).toBe(true);
    expect(outcomes.slice(256).every((o) => o instanceof Float32Array)).toBe(true);
    expect((await embeddingsReceived(tag)).map((r) => r.body.input.length)).toEqual([256, 256, 256, 256, 44]);
  });

  it('Workers AI: embeds through the AI binding; without the binding it says so', async () => {
    const before = (await embeddingsReceived('workers-ai')).length;
    const vectors = await embedTexts(
      embeddingProvider(env, { provider: 'workers-ai', model: '@cf/baai/bge-small-en-v1.5' }),
      ['car', 'automobile'],
      FAST,
    );
    expect(vectors.map((v) => v.length)).toEqual([384, 384]);
    expect(cosine(vectors[0], vectors[1])).toBeGreaterThan(0.99);
    const received = (await embeddingsReceived('workers-ai')).slice(before);
    expect(received).toEqual([expect.objectContaining({ body: { model: '@cf/baai/bge-small-en-v1.5', input: ['car', 'automobile'] } })]);

    const noBinding = embeddingProvider({ ...env, AI: undefined }, { provider: 'workers-ai', model: 'm' });
    await expect(embedTexts(noBinding, ['car'], FAST)).rejects.toThrow('Workers AI is not configured on this deployment (no AI binding)');
  });
});
