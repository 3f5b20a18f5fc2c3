// Real Chromium (Debian's `chromium` package, installed by .ci/run) driven by playwright-core, one fresh
// profile per test file; a failing test leaves a screenshot in test-results/browser/.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { onTestFailed } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/chromium.mjs';

const SCREENSHOTS = join(process.cwd(), 'test-results', 'browser');

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'edge-search-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A new tab; if the current test fails, a screenshot of it is saved under test-results/browser/. */
export async function openPage(browser: Browser, url: string): Promise<Page> {
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  onTestFailed(async ({ task }) => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const file = join(SCREENSHOTS, `${task.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.png`);
    await page.screenshot({ path: file, fullPage: true });
    console.error(`screenshot: ${file}${errors.length ? `; page errors: ${errors.join(' | ')}` : ''}`);
  });
  await page.goto(url);
  return page;
}

/** Waits until the page has rendered the answer to `query` (the page marks each render on <body>). */
export async function renderedFor(page: Page, query: string): Promise<void> {
  await page.waitForFunction(`document.body.dataset.renderedQuery === ${JSON.stringify(query)}`);
}

/** The number in the stats line ("46 results found in 3ms"). */
export async function resultCount(page: Page): Promise<number> {
  const text = await page.locator('.ais-Stats-text').innerText();
  return Number(/([\d,]+) results?/.exec(text)?.[1].replace(/,/g, '') ?? (text.includes('No results') ? 0 : NaN));
}

/** A field of each shown hit, read from its details line (`installedSize: 266`). */
export async function hitDetail(page: Page, field: string): Promise<string[]> {
  const details = await page.locator('.hit .details').allInnerTexts();
  return details.map((line) => new RegExp(`(?:^| · )${field}: ([^·]*)`).exec(line)?.[1].trim() ?? '');
}
