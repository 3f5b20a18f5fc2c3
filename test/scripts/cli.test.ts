import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareOutcomes, renderComparison } from '../../scripts/relevance/compare.mjs';

const root = resolve(import.meta.dirname, '..', '..');

/** Each script without arguments, the command that runs it and settings its usage must name. */
const SCRIPTS = [
  { file: 'scripts/dev.mjs', command: 'npm run dev', names: ['--port', 'PORT', '8787'] },
  { file: 'scripts/bench.mjs', command: 'npm run bench', names: ['BENCH_ONLY', 'CATALOGUE_DIR', 'docs/benchmarks.md'] },
  { file: 'scripts/bench/engine-path.mjs', command: 'npm run bench:engine', names: ['--against', '--rounds', 'CATALOGUE_DIR'] },
  {
    file: 'scripts/relevance.mjs',
    command: 'npm run relevance',
    names: ['--url', '--shards', '--save', '--against', 'CATALOGUE_DIR', 'docs/relevance.md'],
  },
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

describe('npm run relevance --save / --against', () => {
  it('refuses a saved run that is not there, or not one, in one line before loading the catalogue', () => {
    const dir = mkdtempSync(join(tmpdir(), 'relevance-against-'));
    const notARun = join(dir, 'not-a-run.json');
    writeFileSync(notARun, '{"outcomes": []}');
    const missing = run('scripts/relevance.mjs', '--against', join(dir, 'missing.json'));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe(
      `npm run relevance: --against ${join(dir, 'missing.json')}: no such file; see \`npm run relevance -- --help\`\n`,
    );
    const wrong = run('scripts/relevance.mjs', '--against', notARun);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toBe(`npm run relevance: --against ${notARun}: not a run saved by --save; see \`npm run relevance -- --help\`\n`);
    const directory = run('scripts/relevance.mjs', '--against', dir);
    expect(directory.status).toBe(2);
    expect(directory.stderr).toBe(`npm run relevance: --against ${dir}: cannot be read (EISDIR); see \`npm run relevance -- --help\`\n`);
  });

  it('refuses a file --save cannot write before scoring anything', () => {
    const { status, stderr } = run('scripts/relevance.mjs', '--save', '/nonexistent/run.json');
    expect(status).toBe(2);
    expect(stderr).toBe('npm run relevance: --save /nonexistent/run.json: cannot be written (ENOENT); see `npm run relevance -- --help`\n');
  });

  it('refuses them beside --url or --shards, which score other things', () => {
    const { status, stderr } = run('scripts/relevance.mjs', '--save', '/tmp/unused.json', '--shards', '4');
    expect(status).toBe(2);
    expect(stderr).toContain('--save and --against score ours in process alone, not with --url or --shards');
  });
});

describe('comparing relevance runs', () => {
  const outcome = (query: string, rank: number, ranked: string[]) => ({ kind: 'general', query, set: undefined, rank, ranked });

  it('lists the cases whose first acceptable answer moved, the largest loss first, and counts changed top 10s', () => {
    const before = [
      outcome('gimp', 1, ['gimp', 'gimp-data']),
      outcome('pdf reader', 4, ['a', 'b', 'c', 'evince']),
      outcome('java', 2, ['x', 'default-jdk']),
    ];
    const after = [outcome('gimp', 1, ['gimp', 'gimp-help']), outcome('pdf reader', 1, ['evince']), outcome('java', 0, ['x', 'y'])];
    const comparison = compareOutcomes(before, after);
    expect(comparison).toEqual({
      compared: 3,
      changedTop10: 3,
      moved: [
        { kind: 'general', query: 'java', set: undefined, from: 2, to: 0 },
        { kind: 'general', query: 'pdf reader', set: undefined, from: 4, to: 1 },
      ],
    });
    expect(renderComparison(comparison).split('\n')).toEqual([
      '3 cases compared: 3 top 10s changed; first acceptable answer higher in 1, lower in 1',
      'general           java  2 -> >10',
      'general           pdf reader  4 -> 1',
    ]);
  });

  it('compares only the cases both runs have', () => {
    const comparison = compareOutcomes([outcome('old', 1, ['a'])], [outcome('new', 0, ['b']), outcome('old', 1, ['a'])]);
    expect(comparison).toEqual({ compared: 1, changedTop10: 0, moved: [] });
  });
});
