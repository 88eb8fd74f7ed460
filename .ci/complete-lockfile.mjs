// Adds the lockfile entries that npm leaves out when the registry it talks to has no copy of a
// platform-specific optional dependency (this workplace's npm mirror serves linux-x64 builds only).
// Without them `npm ci` refuses the lockfile ("Missing: @biomejs/cli-darwin-arm64@ from lock file").
// The entries carry os/cpu/libc, so npm skips them on other platforms without fetching anything.
// Run it after every `npm install`: node .ci/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS = { darwin: 'darwin', linux: 'linux', win32: 'win32', android: 'android', freebsd: 'freebsd', wasm32: null };
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'wasm32'];

function platformOf(name) {
  const words = name.split('/').pop().split('-');
  const os = words.map((w) => OS[w]).find((o) => o !== undefined);
  const cpu = words.find((w) => CPU.includes(w));
  const libc = words.includes('musl') ? 'musl' : words.includes('gnu') ? 'glibc' : undefined;
  return { ...(os ? { os: [os] } : {}), ...(cpu && cpu !== 'wasm32' ? { cpu: [cpu] } : {}), ...(libc ? { libc: [libc] } : {}) };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = path ? `${path}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[nested] || packages[`node_modules/${name}`]) continue;
    if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(spec)) {
      throw new Error(`${name}: optional dependency of ${path} pinned by a range (${spec}); add it by hand`);
    }
    packages[`node_modules/${name}`] = {
      version: spec,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...platformOf(name),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: ${added} platform entries added`);
