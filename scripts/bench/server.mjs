// A `wrangler dev` of this repository on its own ports and its own persisted state, for the benchmark.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { waitUntilUp } from '../seed.mjs';

// wrangler dev runs every Durable Object of a class in one isolate, so a 16-shard million-document app (about 850 MB)
// shares one V8 heap that production spreads over isolates of 128 MB each: below its limit V8 spends a search in
// full collections (22-27 s instead of about 60 ms). A larger limit keeps the local figures about the service.
const env = {
  MINIFLARE_WORKERD_V8_FLAGS: '--max-old-space-size=6144',
  ...process.env,
  WRANGLER_SEND_METRICS: 'false',
  CI: 'true',
  NO_COLOR: '1',
};

/** A TCP port nobody listens on right now (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function wranglerBin(root) {
  return join(root, 'node_modules', '.bin', 'wrangler');
}

/** Applies the D1 migrations into the persisted state `persistDir`. */
export function applyMigrations(root, persistDir) {
  const result = spawnSync(wranglerBin(root), ['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persistDir], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`wrangler d1 migrations apply failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
}

/**
 * Starts `wrangler dev` in its own process group (so stopping it also stops workerd) and waits until /health answers.
 * `vars` are passed with `--var`, which takes precedence over any `.dev.vars` of the checkout. `localObservability`
 * false turns off wrangler's local trace collector (`X_LOCAL_OBSERVABILITY`, on by default), which production has not.
 * Answers { baseUrl, pid, stop(), kill(), log() }: `pid` is the process group's (workerd runs in it), `kill` is
 * synchronous, for exit handlers.
 */
export async function startWrangler({ root, persistDir, port, inspectorPort, vars, localObservability = true, timeoutMs = 90_000 }) {
  const args = [
    'dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--inspector-port',
    String(inspectorPort),
    '--persist-to',
    persistDir,
    '--show-interactive-dev-session=false',
    '--log-level',
    'warn',
    ...Object.entries(vars).flatMap(([name, value]) => ['--var', `${name}:${value}`]),
  ];
  const child = spawn(wranglerBin(root), args, {
    cwd: root,
    env: { ...env, X_LOCAL_OBSERVABILITY: String(localObservability) },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited = false;
  const exit = new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      exited = true;
      resolve({ code, signal });
    }),
  );

  const kill = (signal = 'SIGKILL') => {
    if (exited) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const stop = async () => {
    kill('SIGTERM');
    const timer = setTimeout(() => kill('SIGKILL'), 5_000);
    await exit;
    clearTimeout(timer);
    // workerd may outlive wrangler for a moment; make sure the group is gone before the state is reused.
    kill('SIGKILL');
  };

  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await Promise.race([
      waitUntilUp(baseUrl, timeoutMs),
      exit.then(({ code, signal }) => {
        throw new Error(`wrangler dev exited early (code ${code}, signal ${signal})`);
      }),
    ]);
  } catch (err) {
    await stop();
    throw new Error(`${err.message}\n--- wrangler output ---\n${output}`, { cause: err });
  }
  return { baseUrl, pid: child.pid, stop, kill, log: () => output };
}
