/** Files of the Workers static assets (`public/`, built from `ui/` by scripts/build-ui.mjs). */
import type { Context } from 'hono';
import { ApiError } from '../errors';
import type { AppEnv } from '../env';

/**
 * The static asset at `path`; when the assets hold no such file (`public/` was not built) a 503 in the one error
 * body that says so, instead of the assets' bare 404.
 */
export async function staticAsset(c: Context<AppEnv>, path: string): Promise<Response> {
  const asset = await c.env.ASSETS.fetch(new URL(path, c.req.url));
  if (asset.ok) return asset;
  throw new ApiError(
    503,
    `The static assets have no ${path} (answered ${asset.status}): build them with \`node scripts/build-ui.mjs\` (wrangler dev and deploy run it)`,
  );
}
