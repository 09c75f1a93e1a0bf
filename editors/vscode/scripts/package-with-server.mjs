// Packages a platform-specific .vsix with the server inside (bin/backyard-ls),
// built from this repository for this machine's OS and architecture.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';

const targets = { 'linux-x64': 'linux-x64', 'linux-arm64': 'linux-arm64', 'darwin-x64': 'darwin-x64', 'darwin-arm64': 'darwin-arm64', 'win32-x64': 'win32-x64' };
const target = targets[`${process.platform}-${process.arch}`];
if (!target) {
  console.error(`no VS Code target for ${process.platform}-${process.arch}`);
  process.exit(2);
}
const run = (cmd, args, cwd) => {
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
mkdirSync('bin', { recursive: true });
const exe = process.platform === 'win32' ? 'backyard-ls.exe' : 'backyard-ls';
run('go', ['build', '-trimpath', '-o', resolve('bin', exe), './cmd/backyard-ls'], resolve('..', '..'));
run('npx', ['vsce', 'package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '--target', target], '.');
