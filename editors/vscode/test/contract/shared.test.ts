// Replays every shared contract case against the real server.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { casesDir, replay, type Case } from './cases';

describe('shared contract cases (lsp/testdata/contract)', () => {
  it('exist', () => assert.ok(existsSync(casesDir), `${casesDir} is missing`));
  const files = existsSync(casesDir) ? readdirSync(casesDir).filter((f) => f.endsWith('.json')).sort() : [];
  for (const f of files) {
    const name = basename(f, '.json');
    const c = JSON.parse(readFileSync(join(casesDir, f), 'utf8')) as Case;
    it(`${name}: ${c.description}`, () => replay(name, c));
  }
  it('the runner fails a case whose expectation the server does not meet', async () => {
    const bad: Case = {
      description: 'a wrong expected value',
      document: 'x = 6\nx * 7\n',
      steps: [{ command: 'backyard.runCell', argument: { line: 0 }, result: { executions: [{ result: { text: '41' } }] } }],
    };
    await assert.rejects(replay('self-check', bad), /\$\.executions\[0\]\.result\.text: want "41", got "42"/);
    const missing: Case = { description: 'a notification that never comes', document: 'x\n', steps: [{ command: 'backyard.kernelInfo', notifications: [{ method: 'backyard/nothing' }] }] };
    await assert.rejects(replay('self-check', missing), /no message matched/);
  });
});
