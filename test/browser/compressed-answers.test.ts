import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DEMO_APP, DEMO_TENANT } from './demo';
import { launchChromium, openPage, type Browser } from './page';

const base = inject('browserBaseUrl');
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

interface Asked {
  /** `gzip` with a length: sent as the worker spliced it (what wrangler dev compresses itself goes chunked). */
  encoding: string | null;
  length: string | null;
  cache: string | null;
  body: { requestId: string; result: unknown };
}

describe('repeated answers in Chromium', () => {
  it('decodes a repeated answer the worker splices as gzip to the same result as the computed one', async () => {
    const page = await openPage(browser, `${base}/docs`);
    let asked = 0;
    // Each request its own requestId (not part of the answer's key), so Chromium's HTTP cache never answers for the worker.
    const ask = () =>
      page.evaluate(
        async ({ path, requestId }): Promise<Asked> => {
          const response = await fetch(`${path}&requestId=${requestId}`);
          return {
            encoding: response.headers.get('Content-Encoding'),
            length: response.headers.get('Content-Length'),
            cache: response.headers.get('X-Edge-Cache'),
            body: await response.json(),
          };
        },
        { path: `/api/v1/search/${DEMO_TENANT}/${DEMO_APP}?q=editor&rows=5`, requestId: `gzip-${asked++}` },
      );
    const first = await ask();
    let spliced: Asked | undefined;
    // wrangler dev gzips the computed answer and the first repeat itself (chunked, as Cloudflare would); that repeat
    // compresses the answer's end in the background, and a later one goes as the worker's splice, with its length.
    await expect
      .poll(async () => {
        spliced = await ask();
        return `${spliced.encoding} ${spliced.length !== null}`;
      })
      .toBe('gzip true');
    expect(spliced?.cache).toBe('HIT');
    expect(spliced?.body.requestId).toBe(`gzip-${asked - 1}`);
    expect(spliced?.body.result).toEqual(first.body.result);
  });
});
