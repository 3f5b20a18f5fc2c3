// The npm registry reachable here serves workerd's Linux binaries only, so `npm install` leaves its macOS and
// Windows optional packages out of package-lock.json and `npm ci` then refuses the lock as out of sync.
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
writeFileSync('package-lock.json', JSON.stringify(lock, null, 2) + '\n');
console.log(`added ${added} optional platform entries`);
