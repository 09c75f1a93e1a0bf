import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { LanguageClientOptions } from 'vscode-languageclient/node';
import { createClient } from '../../src/client';
import { mock, Uri } from '../mock/vscode';

interface Internals {
  clientOptions: LanguageClientOptions & { initializationOptions: () => unknown };
  sendNotification(type: { method: string }, params: unknown): Promise<void>;
}

function client(isVirtual = (u: string) => u.endsWith('#backyard-kernel')) {
  return createClient('/bin/backyard-ls', { isVirtual }) as unknown as Internals;
}

describe('language client options', () => {
  beforeEach(() => mock.reset());

  it('sync python files and the backyard section, and send the settings as initializationOptions', () => {
    mock.state.config = { 'backyard.backend': 'monty', 'backyard.autoInstall': 'on' };
    const o = client().clientOptions;
    assert.deepEqual(o.documentSelector, [
      { scheme: 'file', language: 'python' },
      { scheme: 'untitled', language: 'python' },
    ]);
    assert.equal(o.synchronize?.configurationSection, 'backyard');
    const init = o.initializationOptions() as { backyard: { backend: string; autoInstall: string } };
    assert.equal(init.backyard.backend, 'monty');
    assert.equal(init.backyard.autoInstall, 'on');
  });

  it('send didChangeConfiguration in the server shape', async () => {
    mock.state.config = { 'backyard.timeout': 7 };
    const c = client();
    const sent: [string, unknown][] = [];
    c.sendNotification = async (type, params) => void sent.push([type.method, params]);
    await c.clientOptions.middleware!.workspace!.didChangeConfiguration!(['backyard'], async () => assert.fail('the raw section must not be sent'));
    assert.equal(sent[0]![0], 'workspace/didChangeConfiguration');
    assert.equal((sent[0]![1] as { settings: { backyard: { timeout: number } } }).settings.backyard.timeout, 7);
  });

  it('keep diagnostics of notebook kernel documents off the Problems view', () => {
    const mw = client().clientOptions.middleware!;
    const passed: string[] = [];
    const next = (u: { toString(): string }) => void passed.push(u.toString());
    mw.handleDiagnostics!(Uri.parse('file:///w/a.py') as never, [], next as never);
    mw.handleDiagnostics!(Uri.parse('file:///w/n.ipynb#backyard-kernel') as never, [], next as never);
    assert.deepEqual(passed, ['file:///w/a.py']);
  });

  it('show the server inlay hints only when inlineResults is inlayHints', async () => {
    const mw = client().clientOptions.middleware!;
    const next = async () => [{ label: '=> 42' }];
    assert.deepEqual(await mw.provideInlayHints!({} as never, {} as never, {} as never, next as never), []);
    mock.state.config = { 'backyard.inlineResults': 'inlayHints' };
    assert.deepEqual(await mw.provideInlayHints!({} as never, {} as never, {} as never, next as never), [{ label: '=> 42' }]);
  });
});
