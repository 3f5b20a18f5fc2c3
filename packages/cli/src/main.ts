/**
 * `edge-search`: feeds and administers an edge search service. Every command takes `--url`, `--token`, `--admin-token`,
 * `--root-token`, `--tenant`, `--app` or the environment variables EDGE_SEARCH_URL, EDGE_SEARCH_TOKEN (feeding token),
 * EDGE_SEARCH_ADMIN_TOKEN (tenant admin token), EDGE_SEARCH_ROOT_TOKEN, EDGE_SEARCH_TENANT, EDGE_SEARCH_APP.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createClient, EdgeSearchError, type EdgeSearchClient } from '../../client/src/index.ts';
import { describeCounts, feedCommand } from './feed.ts';

export const USAGE = `Usage: edge-search <command> [options]

Commands:
  feed FILE            feed .ndjson, .json or .gz (--type svc|reporting, --full, --keep-going, --concurrency N, --chunk-size N, --wait)
  status               full-feed state and queue entries by state
  schema get           print the search app's field schema
  schema put FILE      replace the field schema (then: reindex)
  reindex [--wait]     re-index the stored documents with the current schema
  search "q"           search (--filter field=value, repeatable; --sort id; --rows N)
  tokens create --kind admin|feeding --permission READ|WRITE [--name N]
  tokens list | tokens revoke ID
  apps list | apps delete [CODE]

Connection (flags or environment):
  --url EDGE_SEARCH_URL   --tenant EDGE_SEARCH_TENANT   --app EDGE_SEARCH_APP
  --token EDGE_SEARCH_TOKEN (feeding)   --admin-token EDGE_SEARCH_ADMIN_TOKEN   --root-token EDGE_SEARCH_ROOT_TOKEN

Exit codes: 0 done, 1 entries rejected or ended ERROR, 2 usage or request error.
`;

const OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  'admin-token': { type: 'string' },
  'root-token': { type: 'string' },
  tenant: { type: 'string' },
  app: { type: 'string' },
  type: { type: 'string', default: 'svc' },
  full: { type: 'boolean', default: false },
  'keep-going': { type: 'boolean', default: false },
  concurrency: { type: 'string', default: '4' },
  'chunk-size': { type: 'string', default: '1000' },
  wait: { type: 'boolean', default: false },
  filter: { type: 'string', multiple: true },
  sort: { type: 'string' },
  rows: { type: 'string' },
  kind: { type: 'string' },
  permission: { type: 'string' },
  name: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

class UsageError extends Error {}

/** Runs one command; answers the process exit code. */
export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  out = process.stdout,
  err = process.stderr,
): Promise<number> {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
    if (values.help || !positionals.length) {
      out.write(USAGE);
      return values.help ? 0 : 2;
    }
    return await run(positionals, values, connect(values, env), out);
  } catch (error) {
    if (error instanceof EdgeSearchError) err.write(`edge-search: ${error.describe()}\n`);
    else if (
      error instanceof UsageError ||
      (error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
    ) {
      err.write(`edge-search: ${error.message}\n\n${USAGE}`);
      return 2;
    } else err.write(`edge-search: ${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof EdgeSearchError || !(error instanceof Error) ? 2 : 1;
  }
}

function connect(values: Values, env: NodeJS.ProcessEnv): EdgeSearchClient {
  const url = values.url ?? env.EDGE_SEARCH_URL;
  const tenant = values.tenant ?? env.EDGE_SEARCH_TENANT;
  if (!url) throw new UsageError('set --url or EDGE_SEARCH_URL');
  if (!tenant) throw new UsageError('set --tenant or EDGE_SEARCH_TENANT');
  return createClient({
    url,
    tenant,
    app: values.app ?? env.EDGE_SEARCH_APP,
    token: values.token ?? env.EDGE_SEARCH_TOKEN,
    adminToken: values['admin-token'] ?? env.EDGE_SEARCH_ADMIN_TOKEN,
    rootToken: values['root-token'] ?? env.EDGE_SEARCH_ROOT_TOKEN,
  });
}

function positiveInteger(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} must be a positive integer`);
  return n;
}

function json(out: NodeJS.WriteStream, value: unknown): void {
  out.write(`${JSON.stringify(value, null, 2)}\n`);
}

async function run(positionals: string[], values: Values, client: EdgeSearchClient, out: NodeJS.WriteStream): Promise<number> {
  const [command, sub, arg] = positionals;
  switch (
    `${command} ${command === 'feed' || command === 'search' || command === 'status' || command === 'reindex' ? '' : (sub ?? '')}`.trim()
  ) {
    case 'feed': {
      if (!sub) throw new UsageError('feed needs a FILE');
      if (values.type !== 'svc' && values.type !== 'reporting') throw new UsageError('--type is svc or reporting');
      return feedCommand(
        client,
        {
          file: sub,
          type: values.type,
          full: values.full,
          keepGoing: values['keep-going'],
          concurrency: positiveInteger(values.concurrency, 'concurrency'),
          chunkSize: positiveInteger(values['chunk-size'], 'chunk-size'),
          wait: values.wait,
        },
        out,
      );
    }
    case 'status': {
      const [fullFeed, queue] = await Promise.all([client.fullFeedStatus(), client.queueEntries({ limit: 1 })]);
      out.write(
        `Full feed: ${fullFeed.state}${fullFeed.active ? ` (cycle ${fullFeed.cycleId}, ${fullFeed.stagedDocuments} staged, ${fullFeed.pendingOperations} pending)` : ''}\n`,
      );
      out.write(`Live documents: ${fullFeed.liveDocuments}\nQueue entries: ${describeCounts(queue)}\n`);
      return 0;
    }
    case 'schema get':
      json(out, await client.getSchema());
      return 0;
    case 'schema put': {
      if (!arg) throw new UsageError('schema put needs a FILE');
      await client.putSchema(JSON.parse(await readFile(arg, 'utf8')));
      out.write('Schema replaced; run `edge-search reindex --wait` to index the stored documents with it\n');
      return 0;
    }
    case 'reindex': {
      const { jobId } = await client.reindex();
      out.write(`Re-index job ${jobId} scheduled\n`);
      if (!values.wait) return 0;
      const job = await client.waitForJob(jobId);
      out.write(`Re-index ${job.state}: ${job.processed} of ${job.total ?? '?'} documents${job.error ? `: ${job.error}` : ''}\n`);
      return job.state === 'FINISHED' ? 0 : 1;
    }
    case 'search': {
      const filters = Object.fromEntries(
        (values.filter ?? []).map((filter) => {
          const at = filter.indexOf('=');
          if (at < 1) throw new UsageError(`--filter takes field=value, not '${filter}'`);
          return [filter.slice(0, at), { filterType: 'term' as const, values: [filter.slice(at + 1)] }];
        }),
      );
      const rows = values.rows ? positiveInteger(values.rows, 'rows') : undefined;
      json(out, (await client.search({ q: sub ?? '', sort: values.sort, rows, filters })).result);
      return 0;
    }
    case 'tokens create': {
      const kind = values.kind;
      const permission = values.permission;
      if (kind !== 'admin' && kind !== 'feeding') throw new UsageError('--kind is admin or feeding');
      if (permission !== 'READ' && permission !== 'WRITE') throw new UsageError('--permission is READ or WRITE');
      json(out, await client.createToken({ kind, permission, name: values.name }));
      return 0;
    }
    case 'tokens list':
      json(out, (await client.tokens()).tokens);
      return 0;
    case 'tokens revoke':
      if (!arg) throw new UsageError('tokens revoke needs a token ID (see tokens list)');
      await client.revokeToken(arg);
      out.write(`Token ${arg} revoked\n`);
      return 0;
    case 'apps list':
      json(
        out,
        (await client.searchApps()).searchApps.map(({ code, name, createdAt, updatedAt }) => ({ code, name, createdAt, updatedAt })),
      );
      return 0;
    case 'apps delete': {
      const target = arg ? createClient({ ...client.options, app: arg }) : client;
      await target.deleteSearchApp();
      out.write(`Search app ${target.options.tenant}/${target.options.app} deleted with its documents and queue entries\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command '${positionals.join(' ')}'`);
  }
}
