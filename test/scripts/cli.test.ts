import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');

/** Each long-running script, the command that runs it and settings its usage must name. */
const SCRIPTS = [
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
