// Builds the Worker's static assets from ui/ (no CDN): the search page into public/ui/ (InstantSearch.js and
// the adapter bundled by esbuild) and the API reference into public/docs/ (Swagger UI's prebuilt bundle).
// Run by wrangler's [build] (dev, deploy) and before the tests. `UI_MINIFY=no` keeps the page's function names, for a
// CPU profile in DevTools.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'public', 'ui');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(root, 'ui', 'search-page.ts')],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: process.env.UI_MINIFY !== 'no',
  outfile: join(out, 'search-page.js'),
  logLevel: 'warning',
});
copyFileSync(join(root, 'ui', 'search.html'), join(out, 'search.html'));
copyFileSync(join(root, 'ui', 'search-page.css'), join(out, 'search-page.css'));
copyFileSync(join(root, 'node_modules', 'instantsearch.css', 'themes', 'satellite-min.css'), join(out, 'satellite.css'));

const docs = join(root, 'public', 'docs');
const swaggerUi = join(root, 'node_modules', 'swagger-ui-dist');
mkdirSync(docs, { recursive: true });
copyFileSync(join(root, 'ui', 'docs.html'), join(docs, 'index.html'));
copyFileSync(join(root, 'ui', 'docs.js'), join(docs, 'docs.js'));
copyFileSync(join(swaggerUi, 'swagger-ui-bundle.js'), join(docs, 'swagger-ui-bundle.js'));
copyFileSync(join(swaggerUi, 'swagger-ui.css'), join(docs, 'swagger-ui.css'));
