// Packages platform-specific .vsix files with the server inside
// (bin/backyard-ls, .exe on Windows), as the VS Code docs recommend for
// extensions that ship a native binary: the Marketplace hands each user the
// one for their platform. The platforms and their VS Code targets come from
// packaging/platforms.txt; the binaries from scripts/build-dist.sh.
//   npm run package:with-server                      this machine's platform
//   npm run package:with-server -- linux-arm64 ...   those VS Code targets
//   npm run package:with-server -- --all             every platform
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';

const repo = resolve('..', '..');
const table = readFileSync(resolve(repo, 'packaging', 'platforms.txt'), 'utf8')
  .split('\n')
  .map((l) => l.trim().split(/\s+/))
  .filter((f) => f.length >= 3 && !f[0].startsWith('#'))
  .map(([platform, , target]) => ({ platform, target }));

const args = process.argv.slice(2);
let wanted;
if (args.includes('--all')) {
  wanted = table;
} else if (args.length > 0) {
  wanted = args.map((t) => table.find((p) => p.target === t) ?? fail(`no platform for the VS Code target ${t} in packaging/platforms.txt`));
} else {
  const here = `${process.platform}-${process.arch}`;
  wanted = [table.find((p) => p.target === here) ?? fail(`no VS Code target for ${here} in packaging/platforms.txt`)];
}

function fail(msg) {
  console.error(`package-with-server: ${msg}`);
  process.exit(2);
}

const run = (cmd, argv, cwd) => {
  const r = spawnSync(cmd, argv, { cwd, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
run(resolve(repo, 'scripts', 'build-dist.sh'), wanted.map((p) => p.platform), repo);
try {
  for (const { platform, target } of wanted) {
    const exe = platform.startsWith('windows/') ? 'backyard-ls.exe' : 'backyard-ls';
    rmSync('bin', { recursive: true, force: true });
    mkdirSync('bin');
    copyFileSync(resolve(repo, 'dist', 'bin', platform.replace('/', '-'), exe), resolve('bin', exe));
    const out = `backyard-ls-${target}-${version}.vsix`;
    run('npx', ['vsce', 'package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '--target', target, '--out', out], '.');
  }
} finally {
  // A bin/ left behind would shadow every other server while developing.
  rmSync('bin', { recursive: true, force: true });
}
