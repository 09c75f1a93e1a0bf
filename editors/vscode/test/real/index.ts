// The tests module VS Code loads in the extension host (extensionTestsPath):
// runs the files of this session beside it (*.test.js, or *.noserver.js for
// the session without a server) with Mocha, streams each result to the
// driver and reports the counts. VS Code ends the run with exit code 1 when
// run() rejects.

import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import { bridge, bridgeConfig } from './helpers';

export async function run(): Promise<void> {
  // The spec reporter writes to the extension host's console (the driver's page.log).
  const mocha = new Mocha({ ui: 'bdd', reporter: 'spec', color: false, timeout: 90_000 });
  const { grep, files } = bridgeConfig();
  if (grep) mocha.grep(grep);
  for (const f of fs.readdirSync(__dirname).sort()) {
    if (f.endsWith(files)) mocha.addFile(path.join(__dirname, f));
  }
  let sent: Promise<unknown> = Promise.resolve();
  const report = (line: string): void => {
    sent = sent.then(() => bridge('log', { line })).catch(() => undefined);
  };
  const tests: { title: string; state: string }[] = [];
  const failures = await new Promise<number>((resolve) => {
    const runner = mocha.run(resolve);
    runner.on('suite', (s) => s.title && report(s.title));
    runner.on('pass', (t) => {
      tests.push({ title: t.fullTitle(), state: 'passed' });
      report(`  ✔ ${t.title} (${t.duration ?? 0} ms)`);
    });
    runner.on('fail', (t, err: Error) => {
      tests.push({ title: t.fullTitle(), state: 'failed' });
      report(`  ✗ ${t.title}\n${err.stack ?? err.message}`);
    });
  });
  await sent;
  const passed = tests.filter((t) => t.state === 'passed').length;
  await bridge('summary', { passed, failed: failures, tests });
  if (failures > 0) throw new Error(`${failures} test(s) failed`);
  if (passed === 0) throw new Error('no test ran');
}
