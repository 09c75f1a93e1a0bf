// The variables view (Explorer › Backyard Variables) and the quick pick.

import * as assert from 'node:assert/strict';
import { before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { activated, bridge, fileUri, openEditor, quickPickRows, server, waitFor } from './helpers';

/** The view's rows as "name | type = repr". */
const rows = (): Promise<string[]> =>
  bridge<string[]>('texts', { selector: '.pane:has(.pane-header[aria-label^="Backyard Variables"]) .monaco-list-row', parts: '.label-name, .label-description' });

describe('the variables view', () => {
  const uri = () => fileUri('variables.py');

  before(async () => {
    await openEditor('variables.py');
    await activated();
  });

  it('lists the kernel’s names with type and value', async () => {
    await server('backyard.runCell', { uri: uri().toString(), line: 0, wait: true });
    await vscode.commands.executeCommand('backyardVariables.focus');
    const r = await waitFor('the variables in the view', async () => {
      const t = await rows();
      return t.some((x) => x.includes('total')) ? t : undefined;
    });
    assert.ok(r.includes('total | int = 3'), JSON.stringify(r));
    assert.ok(r.includes("names | list = ['ada', 'grace']"), JSON.stringify(r));
  });

  it('follows a run without being asked', async () => {
    await vscode.window.showTextDocument((await vscode.workspace.openTextDocument(uri())), { preserveFocus: false });
    await server('backyard.runCell', { uri: uri().toString(), line: 4, wait: true });
    await waitFor('total = 4 in the view', async () => (await rows()).includes('total | int = 4'));
  });

  it('Show Variables lists them in a quick pick', async () => {
    await openEditor('variables.py');
    void vscode.commands.executeCommand('backyard.editor.showVariables');
    const items = await waitFor('the variables quick pick', async () => {
      const t = await quickPickRows();
      return t.some((x) => x.startsWith('total')) ? t : undefined;
    });
    assert.ok(items.includes('total, int, 4'), JSON.stringify(items));
    assert.ok(items.includes("names, list, ['ada', 'grace']"), JSON.stringify(items));
    await bridge('press', { keys: 'Escape' });
  });
});
