import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../env';

/**
 * One instance per search app (named `<tenant>/<code>`): holds the app's index in memory,
 * persists it in its SQLite storage and serializes full-feed cycles.
 */
export class SearchAppObject extends DurableObject<Env> {
  async ping(): Promise<string> {
    return 'pong';
  }
}

export function searchAppStub(env: Env, tenantCode: string, code: string) {
  return env.SEARCH_APP.get(env.SEARCH_APP.idFromName(`${tenantCode}/${code}`));
}
