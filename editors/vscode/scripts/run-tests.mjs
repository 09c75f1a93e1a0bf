// Runs the bundled unit or contract tests with Node's test runner. Contract
// tests get the server from $BACKYARD_LS, else it is built from this
// repository into a temporary directory.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const kind = process.argv[2];
if (kind !== 'unit' && kind !== 'contract') {
  console.error('usage: run-tests.mjs unit|contract');
  process.exit(2);
}
const dir = join('out', 'test', kind);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.test.js'))
  .map((f) => join(dir, f));

const env = { ...process.env };
let built;
if (kind === 'contract' && !env.BACKYARD_LS) {
  built = mkdtempSync(join(tmpdir(), 'backyard-vscode-'));
  const bin = join(built, 'backyard-ls');
  const root = resolve('..', '..');
  console.log(`building the server: go build -o ${bin} ./cmd/backyard-ls (in ${root})`);
  const r = spawnSync('go', ['build', '-o', bin, './cmd/backyard-ls'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error('go build failed; set BACKYARD_LS to a built server to run the contract tests');
    process.exit(1);
  }
  env.BACKYARD_LS = bin;
}
const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...files], { stdio: 'inherit', env });
if (built) rmSync(built, { recursive: true, force: true });
process.exit(r.status ?? 1);
