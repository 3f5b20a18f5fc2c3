import { Hono } from 'hono';
import type { AppEnv, Env } from '../env';
import { limitBodies } from './body-limit';
import { staticAsset } from './assets';
import { errorResponse, onError } from './errors';
import { withDb } from './middleware';
import { openApiDocument } from './openapi';
import { adminRoutes } from './routes/admin';
import { agentAdminRoutes, chatRoutes } from './routes/chat';
import { emailAdminRoutes, emailSendRoutes } from './routes/email';
import { dataRoutes } from './routes/data';
import { jobRoutes } from './routes/jobs';
import { schemaRoutes } from './routes/schema';
import { repeatAtOnce, searchRoutes } from './routes/search';
import { uiRoutes } from './routes/ui';

/** The HTTP surface: each capability mounts its routes here. */
export function createApp() {
  const app = new Hono<AppEnv>();
  app.onError(onError);
  app.notFound((c) => errorResponse(404, `No route for ${c.req.method} ${c.req.path}`));

  app.use('*', limitBodies);
  app.use('*', withDb);
  app.get('/health', (c) => c.json({ status: 'ok' }));
  app.get('/openapi.json', (c) => c.json(openApiDocument));
  // The API reference page over that document: static assets built from ui/docs.html (no CDN).
  app.get('/docs', (c) => staticAsset(c, '/docs/index.html'));
  app.route('/api/v1/admin/email', emailAdminRoutes);
  app.route('/api/v1/admin/agents', agentAdminRoutes);
  app.route('/api/v1/admin', adminRoutes);
  app.route('/api/v1/searchapp', schemaRoutes);
  app.route('/api/v1/data', dataRoutes);
  app.route('/api/v1/job', jobRoutes);
  app.route('/api/v1/email', emailSendRoutes);
  app.route('/api/v1/agent', chatRoutes);
  app.route('/api/v1/search', searchRoutes);
  app.route('/ui', uiRoutes);
  return app;
}

/** The worker's HTTP entry: a repeated search or suggest answered at once from memory (`repeatAtOnce`), the rest by Hono. */
export function createFetch(): ExportedHandlerFetchHandler<Env> {
  const app = createApp();
  return (request, env, ctx) => repeatAtOnce(request, env, ctx) ?? app.fetch(request, env, ctx);
}
