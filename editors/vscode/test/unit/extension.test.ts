import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { EditorCmd } from '../../src/commands';
import { activate } from '../../src/extension';
import { mock, Uri } from '../mock/vscode';

const context = () => ({ subscriptions: [] as { dispose(): unknown }[], extensionPath: '/ext', extensionUri: Uri.file('/ext') });
const settle = () => new Promise((r) => setImmediate(r));

describe('activation without a server', () => {
  beforeEach(() => mock.reset());

  it('says which setting names no binary, links the README, and still registers the editor commands', async () => {
    mock.state.config = { 'backyard.serverPath': '/nowhere/backyard-ls' };
    mock.state.messageAnswer = 'Open README';
    await activate(context() as never);
    await settle();
    const err = mock.state.messages.find((m) => m.level === 'error')!;
    assert.match(err.text, /backyard\.serverPath is set to \/nowhere\/backyard-ls, which is not an executable file/);
    assert.deepEqual(err.items, ['Open README', 'Open Settings']);
    const preview = mock.state.executed.find((e) => e.command === 'markdown.showPreview')!;
    assert.equal(preview.args[0].toString(), 'file:///ext/README.md');
    for (const id of Object.values(EditorCmd)) assert.ok(mock.state.commands.has(id), id);
    // A key pressed now repeats the explanation instead of doing nothing.
    mock.state.messageAnswer = 'Open Settings';
    await mock.state.commands.get(EditorCmd.runCell)!();
    await settle();
    assert.equal(mock.state.messages.filter((m) => m.level === 'error').length, 2);
    assert.deepEqual(mock.state.executed.find((e) => e.command === 'workbench.action.openSettings')?.args, ['backyard.serverPath']);
  });

  it('lists where it looked when nothing is configured', async () => {
    mock.state.config = {};
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent-dir';
    try {
      await activate(context() as never);
    } finally {
      process.env.PATH = saved;
    }
    const err = mock.state.messages.find((m) => m.level === 'error')!;
    assert.equal(err.text, 'backyard: the backyard-ls server was not found (looked in extension bin/ (/ext/bin/backyard-ls), PATH). Install it or set backyard.serverPath.');
  });
});
