import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { LanguageClientOptions } from 'vscode-languageclient/node';
import { createClient } from '../../src/client';
import { askInput } from '../../src/input';
import { CancellationTokenSource, mock, Uri } from '../mock/vscode';

interface Internals {
  clientOptions: LanguageClientOptions & { initializationOptions: () => unknown };
  sendNotification(type: { method: string }, params: unknown): Promise<void>;
}

function client(isVirtual = (u: string) => u.endsWith('#backyard-kernel')) {
  return createClient('/bin/backyard-ls', { isVirtual }) as unknown as Internals;
}

describe('language client options', () => {
  beforeEach(() => mock.reset());

  it('sync python files, no pushed settings section, and send the settings as initializationOptions', () => {
    mock.state.config = { 'backyard.backend': 'monty', 'backyard.autoInstall': 'on' };
    const o = client().clientOptions;
    assert.deepEqual(o.documentSelector, [
      { scheme: 'file', language: 'python' },
      { scheme: 'untitled', language: 'python' },
    ]);
    assert.equal(o.synchronize?.configurationSection, undefined, 'settings are pulled (workspace/configuration), not pushed');
    const init = o.initializationOptions() as { backyard: { backend: string; autoInstall: string } };
    assert.equal(init.backyard.backend, 'monty');
    assert.equal(init.backyard.autoInstall, 'on');
  });

  it('answer workspace/configuration for backyard in the server shape', async () => {
    mock.state.config = { 'backyard.timeout': 7, 'backyard.serverPath': '/x' };
    const mw = client().clientOptions.middleware!.workspace!;
    const answer = (await mw.configuration!({ items: [{ section: 'backyard' }] }, {} as never, (() => assert.fail('the raw section must not be sent')) as never)) as { timeout: number; serverPath?: string }[];
    assert.equal(answer[0]!.timeout, 7);
    assert.equal(answer[0]!.serverPath, undefined, 'editor-only settings stay in the editor');
    let passed = false;
    await mw.configuration!({ items: [{ section: 'python' }] }, {} as never, (() => { passed = true; return [null]; }) as never);
    assert.ok(passed, 'other sections go to VS Code');
  });

  it('keep diagnostics of notebook kernel documents off the Problems view', () => {
    const mw = client().clientOptions.middleware!;
    const passed: string[] = [];
    const next = (u: { toString(): string }) => void passed.push(u.toString());
    mw.handleDiagnostics!(Uri.parse('file:///w/a.py') as never, [], next as never);
    mw.handleDiagnostics!(Uri.parse('file:///w/n.ipynb#backyard-kernel') as never, [], next as never);
    assert.deepEqual(passed, ['file:///w/a.py']);
  });

  it('advertise that they answer backyard/input', () => {
    const caps = (createClient('/bin/backyard-ls', { isVirtual: () => false }) as unknown as { computeClientCapabilities(): { experimental?: { backyard?: { input?: boolean } } } }).computeClientCapabilities();
    assert.equal(caps.experimental?.backyard?.input, true);
  });

  it('ask input() in an input box: the prompt, hidden for a password, Escape is null', async () => {
    const asked: unknown[] = [];
    mock.state.inputAnswer = (o) => (asked.push(o), (o as { password: boolean }).password ? undefined : 'Ada');
    const token = new CancellationTokenSource().token;
    assert.deepEqual(await askInput({ uri: 'file:///w/my%20nb.py', executionId: 'e1', prompt: 'name? ' }, token), { value: 'Ada' });
    assert.deepEqual(await askInput({ uri: 'file:///w/a.py', executionId: 'e2', prompt: 'Password: ', password: true }, token), { value: null });
    assert.deepEqual(asked[0], { title: 'backyard: input() in my nb.py', prompt: 'name?', password: false, ignoreFocusOut: true });
    assert.equal((asked[1] as { password: boolean }).password, true);
  });

  it('show the server inlay hints only when inlineResults is inlayHints', async () => {
    const mw = client().clientOptions.middleware!;
    const next = async () => [{ label: '=> 42' }];
    assert.deepEqual(await mw.provideInlayHints!({} as never, {} as never, {} as never, next as never), []);
    mock.state.config = { 'backyard.inlineResults': 'inlayHints' };
    assert.deepEqual(await mw.provideInlayHints!({} as never, {} as never, {} as never, next as never), [{ label: '=> 42' }]);
  });
});
