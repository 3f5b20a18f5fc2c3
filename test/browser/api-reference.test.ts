import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium, openPage, type Browser } from './page';

const base = inject('browserBaseUrl');
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('API reference page in Chromium', () => {
  it('renders every operation of /openapi.json from assets the worker serves itself', async () => {
    const foreign: string[] = [];
    browser.context.on('request', (request) => {
      if (!request.url().startsWith(base)) foreign.push(request.url());
    });
    const page = await openPage(browser, `${base}/docs`);
    const document = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, object> };
    const operations = Object.values(document.paths).reduce((count, methods) => count + Object.keys(methods).length, 0);
    await expect.poll(() => page.locator('.opblock').count()).toBe(operations);
    await expect.poll(() => page.locator('.opblock-summary-description', { hasText: 'Create or update a search app' }).count()).toBe(1);
    await page.locator('.opblock-summary', { hasText: '/health' }).first().click();
    await page.getByRole('button', { name: 'Try it out' }).click();
    await page.getByRole('button', { name: 'Execute' }).click();
    await expect.poll(() => page.locator('.live-responses-table tbody .response-col_status').first().innerText()).toContain('200');
    expect(foreign).toEqual([]);
  });
});
