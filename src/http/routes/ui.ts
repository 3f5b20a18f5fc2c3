import { Hono } from 'hono';
import { cachedSearchApp } from '../../db/queries';
import type { AppEnv } from '../../env';
import { loadSearchPageConfig } from '../../search/search-page';
import { codeParam, parseOrThrow } from '../../validation';
import { staticAsset } from '../assets';

/** The page template in the static assets (built from `ui/` by scripts/build-ui.mjs). */
const TEMPLATE_PATH = '/ui/search.html';
const CONFIG_SLOT = '<!--search-page-config-->';

/** JSON inside a <script> element: `<` escaped so no value can close the element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** The search page of a search app: the static page with the app's configuration inlined. */
export const uiRoutes = new Hono<AppEnv>().get('/:tenant/:code', async (c) => {
  const tenant = parseOrThrow(codeParam, c.req.param('tenant'), 'path parameters');
  const code = parseOrThrow(codeParam, c.req.param('code'), 'path parameters');
  const row = await cachedSearchApp(c.var.db, tenant, code);
  const template = await staticAsset(c, TEMPLATE_PATH);
  const pageConfig = await loadSearchPageConfig(c.env, tenant, row);
  const config = `<script type="application/json" id="search-page-config">${scriptJson(pageConfig)}</script>`;
  return c.html((await template.text()).replace(CONFIG_SLOT, config));
});
