import { Hono } from 'hono';
import { z } from 'zod';
import { chatOnce, chatStream, prepareChat } from '../../agent/chat';
import { agentConfigInput, agentView, deleteAgent, listAgents, putAgent, requireAgent } from '../../agent/config';
import { requireSecret } from '../auth';
import type { AppEnv } from '../../env';
import { clientIp } from '../middleware';
import { validate } from '../validate';
import { codeParam } from '../../validation';

const agentPath = z.object({ tenant: codeParam, code: codeParam });

/** Root-token administration of agent configurations (our addition to the interface). */
export const agentAdminRoutes = new Hono<AppEnv>()
  .use('*', requireSecret('ADMIN_TOKEN'))
  .put('/:tenant/:code', validate('param', agentPath), validate('json', agentConfigInput), async (c) => {
    const { tenant, code } = c.req.valid('param');
    return c.json(await putAgent(c.var.db, tenant, code, c.req.valid('json')), 200);
  })
  .get('/:tenant', validate('param', agentPath.pick({ tenant: true })), async (c) => {
    const agents = await listAgents(c.var.db, c.req.valid('param').tenant);
    return c.json({ agents: agents.map(agentView) }, 200);
  })
  .delete('/:tenant/:code', validate('param', agentPath), async (c) => {
    const { tenant, code } = c.req.valid('param');
    await deleteAgent(c.var.db, tenant, code);
    return c.body(null, 204);
  })
  .get('/:tenant/:code', validate('param', agentPath), async (c) => {
    const { tenant, code } = c.req.valid('param');
    return c.json(agentView(await requireAgent(c.var.db, tenant, code)), 200);
  });

/** Chat and streaming chat, authenticated by the agent token (`AUTH_TOKEN`). */
export const chatRoutes = new Hono<AppEnv>()
  .use('*', requireSecret('AUTH_TOKEN'))
  .post('/chat/:tenant/:code', async (c) => {
    const chat = await prepareChat(c.env, c.req.param('tenant'), c.req.param('code'), () => c.req.json(), clientIp(c));
    return c.json(await chatOnce(chat), 200);
  })
  .post('/chat/streaming/:tenant/:code', async (c) => {
    const chat = await prepareChat(c.env, c.req.param('tenant'), c.req.param('code'), () => c.req.json(), clientIp(c));
    const { body, done } = chatStream(chat);
    c.executionCtx.waitUntil(done);
    // `identity` keeps wrangler dev and Cloudflare from compressing the stream, which buffers the
    // delta lines until the end for clients that accept gzip (workers-sdk #6577, hono #3449).
    return new Response(body, {
      status: 200,
      headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'Content-Encoding': 'identity' },
    });
  });
