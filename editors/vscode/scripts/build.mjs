// Bundles the extension (out/extension.js) and, unless --extension-only, the
// tests (out/test/**), where `vscode` resolves to the mock in test/mock.
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';
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
}
