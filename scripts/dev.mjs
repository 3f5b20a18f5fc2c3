// `npm run dev [-- --port N]`: applies the local D1 migrations, makes sure .dev.vars holds the secrets,
// starts `wrangler dev`, seeds the demo tenant and prints where everything is.
//   --port N   the port on 127.0.0.1 to serve on (also PORT; default 8787)
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { refuse, scriptArgs } from './cli.mjs';
import { seedDemo } from './seed.mjs';

const flags = scriptArgs(import.meta.url, 'npm run dev', { port: { type: 'string' } });
const port = flags.port ?? process.env.PORT ?? '8787';
if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535) refuse('npm run dev', `The port must be 1 to 65535, not '${port}'`);
const PORT = Number(port);
const BASE_URL = `http://127.0.0.1:${PORT}`;
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true' };

function ensureDevVars() {
  const vars = existsSync('.dev.vars') ? readFileSync('.dev.vars', 'utf8') : '';
  const missing = ['ADMIN_TOKEN', 'AUTH_TOKEN'].filter((name) => !new RegExp(`^${name}=`, 'm').test(vars));
  if (missing.length) {
    const lines = missing.map((name) => `${name}=${randomBytes(24).toString('base64url')}`);
    writeFileSync('.dev.vars', (vars && !vars.endsWith('\n') ? vars + '\n' : vars) + lines.join('\n') + '\n');
    console.log(`Wrote ${missing.join(', ')} to .dev.vars`);
  }
  return Object.fromEntries(
    readFileSync('.dev.vars', 'utf8')
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

const vars = ensureDevVars();
const migrate = spawnSync('npx', ['wrangler', 'd1', 'migrations', 'apply', 'DB', '--local'], { stdio: 'inherit', env });
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

const wrangler = spawn('npx', ['wrangler', 'dev', '--ip', '127.0.0.1', '--port', String(PORT)], {
  stdio: ['inherit', 'inherit', 'inherit'],
  env,
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => wrangler.kill(signal));
wrangler.on('exit', (code) => process.exit(code ?? 0));

try {
  const seeded = await seedDemo(BASE_URL, vars.ADMIN_TOKEN);
  console.log(`
  Edge search is running at ${BASE_URL}

  Admin API root token (X-Service-Token): ${vars.ADMIN_TOKEN}
  Agent chat token     (X-Service-Token): ${vars.AUTH_TOKEN}
  Demo tenant '${seeded.tenant}', search app '${seeded.app}':
    admin token   ${seeded.adminToken}
    feeding token ${seeded.feedingToken}
${seeded.lines.map((line) => `    ${line}`).join('\n')}
`);
} catch (err) {
  console.error('Seeding the demo tenant failed:', err);
  wrangler.kill('SIGTERM');
  process.exit(1);
}
