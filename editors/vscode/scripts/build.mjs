// Bundles the extension (out/extension.js) and, unless --extension-only, the
// tests: unit and contract tests (out/test/unit, out/test/contract), where
// `vscode` resolves to the mock in test/mock, and the suite that runs inside
// a real VS Code (out/test/real), where it is the real API.
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const extensionOnly = process.argv.includes('--extension-only');
const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node18', logLevel: 'warning' };

await build({
  ...common,
  entryPoints: ['src/extension.ts'],
  outfile: 'out/extension.js',
  external: ['vscode'],
  // Smaller .vsix; names are kept so stack traces in the logs stay readable.
  minify: true,
  keepNames: true,
});

if (!extensionOnly) {
  // Tests removed from test/ must not linger in out/test.
  rmSync(join('out', 'test'), { recursive: true, force: true });
  const entries = ['unit', 'contract'].flatMap((dir) =>
    readdirSync(join('test', dir))
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => join('test', dir, f)),
  );
  await build({
    ...common,
    entryPoints: entries,
    outdir: 'out/test',
    outbase: 'test',
    alias: { vscode: './test/mock/vscode.ts' },
    sourcemap: 'inline',
  });
  await build({
    ...common,
    entryPoints: readdirSync(join('test', 'real'))
      .filter((f) => f === 'index.ts' || f.endsWith('.test.ts') || f.endsWith('.noserver.ts'))
      .map((f) => join('test', 'real', f)),
    outdir: 'out/test/real',
    outbase: 'test/real',
    // The extension host provides vscode; mocha is loaded from node_modules so every file shares one.
    external: ['vscode', 'mocha'],
    sourcemap: 'inline',
  });
}
