import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');

/** Each script without arguments, the command that runs it and settings its usage must name. */
const SCRIPTS = [
  { file: 'scripts/dev.mjs', command: 'npm run dev', names: ['--port', 'PORT', '8787'] },
  { file: 'scripts/bench.mjs', command: 'npm run bench', names: ['BENCH_ONLY', 'CATALOGUE_DIR', 'docs/benchmarks.md'] },
  { file: 'scripts/bench/engine-path.mjs', command: 'npm run bench:engine', names: ['--against', '--rounds', 'CATALOGUE_DIR'] },
  { file: 'scripts/relevance.mjs', command: 'npm run relevance', names: ['--url', '--shards', 'CATALOGUE_DIR', 'docs/relevance.md'] },
  { file: 'scripts/chaos.mjs', command: 'npm run chaos', names: ['CHAOS_DOCS', 'CHAOS_SHARDS', 'CATALOGUE_DIR'] },
  { file: 'scripts/fuzz.mjs', command: 'npm run fuzz', names: ['FUZZ_URL', 'FUZZ_RUNS', 'ADMIN_TOKEN'] },
];

// No catalogue and no service: a script that went past its command line fails within seconds instead of loading.
const run = (file: string, ...args: string[]) =>
  spawnSync(process.execPath, [file, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, CATALOGUE_DIR: '/nonexistent', FUZZ_URL: 'http://127.0.0.1:9' },
  });

describe.each(SCRIPTS)('$command', ({ file, command, names }) => {
  it.each(['--help', '-h'])('answers %s with its usage and exits 0 without starting', (flag) => {
    const { status, stdout, stderr } = run(file, flag);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toContain(command);
    for (const name of names) expect(stdout).toContain(name);
  });

  it('refuses an unknown option in one line naming it, exit code 2', () => {
    const { status, stdout, stderr } = run(file, '--bogus');
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`${command}: Unknown option '--bogus'; see \`${command} -- --help\`\n`);
  });

  it('refuses a stray argument the same way', () => {
    const { status, stderr } = run(file, 'extra');
    expect(status).toBe(2);
    expect(stderr).toBe(`${command}: Unexpected argument 'extra'; see \`${command} -- --help\`\n`);
  });
});

describe('npm run dev --port', () => {
  // In an empty directory: a check that came after `.dev.vars` was written would leave one there.
  const runDev = (args: string[], env: Record<string, string> = {}) => {
    const cwd = mkdtempSync(join(tmpdir(), 'dev-port-'));
    const answer = spawnSync(process.execPath, [resolve(root, 'scripts/dev.mjs'), ...args], {
      cwd,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, ...env },
    });
    return { ...answer, wroteDevVars: existsSync(join(cwd, '.dev.vars')) };
  };

  it.each(['0', '65536', '80a'])('refuses port %s in one line, exit code 2, before writing .dev.vars', (port) => {
    const { status, stderr, wroteDevVars } = runDev(['--port', port]);
    expect(status).toBe(2);
    expect(stderr).toBe(`npm run dev: The port must be 1 to 65535, not '${port}'; see \`npm run dev -- --help\`\n`);
    expect(wroteDevVars).toBe(false);
  });

  it('checks PORT the same way when no --port is given', () => {
    const { status, stderr, wroteDevVars } = runDev([], { PORT: 'abc' });
    expect(status).toBe(2);
    expect(stderr).toBe(`npm run dev: The port must be 1 to 65535, not 'abc'; see \`npm run dev -- --help\`\n`);
    expect(wroteDevVars).toBe(false);
  });
});

describe('npm run generate-catalogue', () => {
  const command = 'npm run generate-catalogue';

  it('answers --help with its usage, both arguments and their defaults, and exits 0', () => {
    const { status, stdout, stderr } = run('scripts/generate-catalogue.mjs', '--help');
    expect(stderr).toBe('');
    expect(status).toBe(0);
    for (const name of [command, 'documents', 'out', '1000000', 'debian-variants.ndjson.gz', 'CATALOGUE_DIR'])
      expect(stdout).toContain(name);
  });

  it.each(['abc', '0', '-5', '1.5'])('refuses %s documents in one line, exit code 2', (count) => {
    const { status, stderr } = run('scripts/generate-catalogue.mjs', '--', count);
    expect(status).toBe(2);
    expect(stderr).toBe(`${command}: The number of documents must be a positive integer, not '${count}'; see \`${command} -- --help\`\n`);
  });

  it('refuses a third argument and an unknown option', () => {
    expect(run('scripts/generate-catalogue.mjs', '10', 'out.ndjson.gz', 'extra').stderr).toBe(
      `${command}: Unexpected argument 'extra'; see \`${command} -- --help\`\n`,
    );
    const { status, stderr } = run('scripts/generate-catalogue.mjs', '--bogus');
    expect(status).toBe(2);
    expect(stderr).toBe(`${command}: Unknown option '--bogus'; see \`${command} -- --help\`\n`);
  });
});
