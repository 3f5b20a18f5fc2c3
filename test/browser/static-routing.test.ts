// wrangler.toml's `run_worker_first` sends its paths to the worker without an asset lookup first: no static asset may
// lie under them, and the paths it names must still reach the worker.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, inject, it } from 'vitest';

const base = inject('browserBaseUrl');
const root = resolve(import.meta.dirname, '..', '..');
const assets = join(root, 'public');

/** The `run_worker_first` rules of wrangler.toml's [assets]. */
function workerFirstRules(): string[] {
  const toml = readFileSync(join(root, 'wrangler.toml'), 'utf8');
  const rules = /^run_worker_first = (\[.*\])$/m.exec(toml)?.[1];
  if (!rules) throw new Error('wrangler.toml has no run_worker_first array');
  return JSON.parse(rules) as string[];
}

/** A rule as Cloudflare matches it: the whole path, `*` any run of characters. */
const ruleMatcher = (rule: string) =>
  new RegExp(
    `^${rule
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'))
      .join('.*')}$`,
  );

function assetPaths(directory = assets): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? assetPaths(join(directory, entry.name)) : [`/${relative(assets, join(directory, entry.name))}`],
  );
}

describe('run_worker_first (wrangler dev)', () => {
  it('leaves every static asset to the assets: none lies under a rule, and each is served as built', async () => {
    const rules = workerFirstRules().map(ruleMatcher);
    const paths = assetPaths();
    expect(paths).toContain('/ui/search-page.js');
    for (const path of paths) {
      expect(rules.filter((rule) => rule.test(path)).length, path).toBe(0);
      const served = await fetch(base + path);
      expect(served.status, path).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(readFileSync(join(assets, path))), path).toBe(true);
    }
  });

  it('sends the paths it names to the worker: /health, API answers and API errors in the one error body', async () => {
    expect(
      workerFirstRules()
        .map(ruleMatcher)
        .some((rule) => rule.test('/api/v1/search/demo/catalog')),
    ).toBe(true);
    expect(await (await fetch(`${base}/health`)).json()).toEqual({ status: 'ok' });
    const missing = await fetch(`${base}/api/v1/no-such-route`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ statusCode: 404, message: 'No route for GET /api/v1/no-such-route' });
  });
});
