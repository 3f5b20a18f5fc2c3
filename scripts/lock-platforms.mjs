// The npm registry reachable here serves workerd's Linux binaries only (and some other native packages, such as
// knip's oxc-parser, only for Linux in their newest version), so `npm install` leaves the other platforms' optional
// packages out of package-lock.json and `npm ci` then refuses the lock as out of sync.
// This adds those optional entries (os/cpu-tagged, never installed on Linux). Run after changing dependencies.
import { readFileSync, writeFileSync } from 'node:fs';

const PLATFORMS = {
  'darwin-64': { os: ['darwin'], cpu: ['x64'] },
  'darwin-arm64': { os: ['darwin'], cpu: ['arm64'] },
  'linux-64': { os: ['linux'], cpu: ['x64'] },
  'linux-arm64': { os: ['linux'], cpu: ['arm64'] },
  'windows-64': { os: ['win32'], cpu: ['x64'] },
};

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  if (!path.endsWith('node_modules/workerd')) continue;
  const base = path.slice(0, -'workerd'.length);
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const platform = PLATFORMS[dep.replace('@cloudflare/workerd-', '')];
    const candidates = [`${base}${dep}`, `node_modules/${dep}`];
    if (!platform || candidates.some((p) => lock.packages[p]?.version === version)) continue;
    const target = lock.packages[`node_modules/${dep}`] ? `${base}${dep}` : `node_modules/${dep}`;
    lock.packages[target] = { version, ...platform, dev: entry.dev, license: 'Apache-2.0', optional: true, engines: { node: '>=16' } };
    added += 1;
  }
}
// Other native packages name their platform binaries `<name>-<os>-<cpu>[-<abi>]` (oxc-parser, rollup, …).
const NATIVE =
  /-(android|darwin|freebsd|linux|openharmony|win32)-(arm64|arm|x64|ia32|ppc64|riscv64|s390x)(?:-(gnu|musl|gnueabihf|musleabihf|eabi|msvc))?$/;
for (const entry of Object.values(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const match = NATIVE.exec(dep);
    if (!match || lock.packages[`node_modules/${dep}`]) continue;
    const [, os, cpu, abi] = match;
    const libc = abi?.startsWith('gnu') ? ['glibc'] : abi?.startsWith('musl') ? ['musl'] : undefined;
    lock.packages[`node_modules/${dep}`] = { version, os: [os], cpu: [cpu], ...(libc ? { libc } : {}), dev: entry.dev, optional: true };
    added += 1;
  }
}

writeFileSync('package-lock.json', JSON.stringify(lock, null, 2) + '\n');
console.log(`added ${added} optional platform entries`);
