import { env, exports } from 'cloudflare:workers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/http/openapi';
import { ADMIN_TOKEN, AGENT_TOKEN, BASE, call, uniqueCode, waitFor } from '../helpers';
import { debianEnvelopes, debianSchema } from '../feeding/helpers';
import { badRequest, createWorld, guardDocuments, problemWith, requestInit, type ServiceCall } from './bad-requests';

/**
 * Property-based fuzzing of every route of the OpenAPI document (test/robustness/bad-requests.ts): random methods,
 * parameters, queries, tokens, headers and bodies never answer 5xx, every error is the one error body, and the
 * documents of the guard tenant, which no request may legitimately change, come out unchanged. Bounded: a fixed
 * seed (fast-check prints it and the path of the failing run; put them in `SEED`/`path` to replay) and run count.
 */
const SEED = 20261123;
const RUNS = 600;

const serviceCall: ServiceCall = async (method, path, token, body) => {
  const res = await call(method, path, { token, body });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
};

describe('fuzzing every route', () => {
  it('random bad requests answer 4xx in the one error body (never 5xx) and change no document', { timeout: 60_000 }, async () => {
    const setup = {
      call: serviceCall,
      rootToken: ADMIN_TOKEN,
      agentToken: AGENT_TOKEN,
      schema: debianSchema,
      documents: debianEnvelopes.slice(0, 5),
      openAiBaseUrl: `http://127.0.0.1:${env.OPENAI_STAND_IN_PORT}/t/${uniqueCode('fuzz')}/v1`,
      smtpPort: env.EMAIL_SMTP_PORT,
      unique: uniqueCode,
      waitFor,
    };
    const world = await createWorld(setup, openApiDocument.paths);
    const before = await guardDocuments(setup, world.guard);
    expect(before.ids).toHaveLength(5);

    await fc.assert(
      fc.asyncProperty(badRequest(world), async (request) => {
        const response = await exports.default.fetch(new Request(BASE + request.path, requestInit(request)));
        const problem = await problemWith(request, response);
        if (problem) throw new Error(problem);
      }),
      { seed: SEED, numRuns: RUNS },
    );

    expect(await guardDocuments(setup, world.guard)).toEqual(before);
  });
});
