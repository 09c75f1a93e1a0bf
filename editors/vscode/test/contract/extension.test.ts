// The whole extension, activated against the real server: the real
// LanguageClient (its command registration, document sync and middleware)
// with the extension's wiring, in the vscode mock.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { activate, deactivate } from '../../src/extension';
import { EditorCmd } from '../../src/commands';
import { Cmd } from '../../src/protocol';
import { mock, mockDocument, mockEditor, mockNotebook, Position, Uri, window, workspace, type NotebookCellOutput } from '../mock/vscode';
import { serverPath } from './harness';

const until = async <T>(what: string, fn: () => T | undefined): Promise<T> => {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('the extension against the real server', () => {
  const doc = mockDocument('# %%\nx = 20\nprint("hi")\nx * 2\n# %%\n1/0\n', Uri.file('/tmp/backyard-e2e/demo.py'));
  const ed = mockEditor(doc, new Position(1, 0));
  const context = { subscriptions: [] as { dispose(): unknown }[], extensionPath: '/nonexistent-extension', extensionUri: Uri.file('/nonexistent-extension') };

  before(async () => {
    mock.reset();
    mock.state.config = { 'backyard.serverPath': serverPath() };
    workspace.textDocuments = [doc];
    window.visibleTextEditors = [ed];
    window.activeTextEditor = ed;
    await activate(context as never);
  });
  after(async () => {
    await deactivate();
    context.subscriptions.forEach((d) => d.dispose());
  });

  it('registers the server commands through the client and its own without a collision', () => {
    for (const id of [...Object.values(Cmd), ...Object.values(EditorCmd)]) assert.ok(mock.state.commands.has(id), id);
    assert.deepEqual(mock.state.messages.filter((m) => m.level !== 'info'), []);
  });

  it('runs the cell at the cursor and shows its result after the cell, the log and the kernel in the status bar', async () => {
    await mock.state.commands.get(EditorCmd.runCell)!();
    const ok = await until('the inline result', () => ed.decorations.get(mock.decorationKey('ok'))?.[0]);
    assert.equal(ok.range.start.line, 3);
    assert.equal(ok.renderOptions.after.contentText, '[1] ✓ 40');
    assert.match(ok.hoverMessage.value, /hi/);
    await until('the log', () => mock.state.logs.find((l) => l.text.startsWith('[1] demo.py:2 ok')));
    assert.ok(mock.state.logs.some((l) => l.text === 'demo.py:2 │ hi'));
    const item = mock.state.statusItems[0]!;
    await until('the status bar', () => item.text.endsWith('monty · idle'));
  });

  it('runs a lens command (a server command) and advances with Shift+Enter', async () => {
    ed.selection = new (ed.selection.constructor as never as typeof import('../mock/vscode').Selection)(new Position(5, 0), new Position(5, 0));
    await mock.state.commands.get(EditorCmd.runCellAndAdvance)!();
    assert.equal(doc.text, '# %%\nx = 20\nprint("hi")\nx * 2\n# %%\n1/0\n\n# %%\n');
    assert.equal(ed.selection.active.line, 8);
    const err = await until('the error result', () => ed.decorations.get(mock.decorationKey('error'))?.[0]);
    assert.equal(err.range.start.line, 5);
    assert.match(err.renderOptions.after.contentText, /ZeroDivisionError/);
    const res = (await mock.state.commands.get(Cmd.runCell)!({ uri: doc.uri.toString(), line: 1 })) as { executions: { executionCount: number }[] };
    assert.equal(res.executions[0]!.executionCount, 3);
  });
});

describe('the notebook controller in the extension', () => {
  const context = { subscriptions: [] as { dispose(): unknown }[], extensionPath: '/nonexistent-extension', extensionUri: Uri.file('/nonexistent-extension') };

  before(async () => {
    mock.reset();
    mock.state.config = { 'backyard.serverPath': serverPath() };
    workspace.textDocuments = [];
    await activate(context as never);
  });
  after(async () => {
    await deactivate();
    context.subscriptions.forEach((d) => d.dispose());
  });

  it('runs notebook cells, streams their output, and keeps kernel diagnostics on the cell, not on a file', async () => {
    const controller = mock.state.controllers[0]!;
    const nb = mockNotebook('/tmp/backyard-e2e/report.ipynb', ['total = 40 + 2\nprint("total:", total)', 'total / 0']);
    controller.selectEmitter.fire({ notebook: nb, selected: true });
    window.activeNotebookEditor = { notebook: nb };
    await controller.executeHandler!(nb.getCells(), nb, controller);
    const [a, b] = controller.executions;
    assert.deepEqual([a!.executionOrder, a!.ended, b!.executionOrder, b!.ended], [1, { success: true }, 2, { success: false }]);
    assert.equal((a!.outputs[0] as NotebookCellOutput).items[0]!.text, 'total: 42\n');
    await until('the log of the notebook run', () => mock.state.logs.find((l) => l.text === 'report.ipynb [cell 1] │ total: 42'));
    assert.equal(mock.state.diagnostics.get('vscode-notebook-cell:/tmp/backyard-e2e/report.ipynb#C1')?.[0]?.message, 'ZeroDivisionError: division by zero');
    assert.deepEqual([...mock.state.diagnostics.keys()].filter((k) => k.includes('#backyard-kernel')), []);
  });

  it('applies the kernel commands to the active notebook', async () => {
    mock.state.quickPickAnswer = () => undefined;
    await mock.state.commands.get(EditorCmd.showVariables)!();
    assert.deepEqual(mock.state.quickPicks.at(-1)!.find((i: { label: string }) => i.label === 'total'), { label: 'total', description: 'int', detail: '42' });
    await mock.state.commands.get(EditorCmd.restart)!();
    await mock.state.commands.get(EditorCmd.showVariables)!();
    assert.match(mock.state.messages.at(-1)!.text, /no variables in the kernel of report\.ipynb/);
  });
});
