// What the kernel asks of the front end besides outputs, as Jupyter's
// front end does it: %load's set_next_input payload replaces the cell's text
// (in a .py file through the server's workspace/applyEdit, which
// vscode-languageclient applies; in a notebook through the controller),
// %edit's edit_magic payload opens its file (the server's
// window/showDocument), and update_display reaches the output an earlier
// notebook cell showed.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { activated, fileUri, openEditor, waitFor, workspaceDir } from './helpers';

const helper = 'def double(n):\n    return 2 * n\n';
const decoder = new TextDecoder();

describe('kernel payloads', () => {
  before(async () => {
    await activated();
    fs.writeFileSync(path.join(workspaceDir(), 'helper.py'), helper);
    fs.writeFileSync(path.join(workspaceDir(), 'load.py'), '# %%\nx = 1\n# %%\n%load helper.py\n');
    fs.writeFileSync(path.join(workspaceDir(), 'edit.py'), "# %%\nprint('shown')\n%edit -n 2 helper.py\n");
    const cell = (source: string) => ({ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source });
    const nb = {
      cells: [cell('%load helper.py'), cell("h = display('first', display_id='p')"), cell("h.update('second')")],
      metadata: { language_info: { name: 'python' } },
      nbformat: 4,
      nbformat_minor: 5,
    };
    fs.writeFileSync(path.join(workspaceDir(), 'payloads.ipynb'), JSON.stringify(nb));
  });

  it('%load in a .py cell: the loaded code takes the cell’s place, its marker kept', async () => {
    const ed = await openEditor('load.py');
    ed.selection = new vscode.Selection(3, 0, 3, 0);
    await vscode.commands.executeCommand('backyard.editor.runCell');
    const want = '# %%\nx = 1\n# %%\n# %load helper.py\n' + helper;
    await waitFor('the loaded code in the cell', () => ed.document.getText() === want, 120_000);
    assert.ok(ed.document.isDirty, 'the edit is the editor’s, not written to disk');
    await ed.document.save(); // nothing left to ask about when the window closes
  });

  it('%edit in a .py cell: the file opens with the cursor at the payload’s line', async () => {
    const ed = await openEditor('edit.py');
    ed.selection = new vscode.Selection(1, 0, 1, 0);
    await vscode.commands.executeCommand('backyard.editor.runCell');
    const file = path.join(workspaceDir(), 'helper.py');
    const shown = await waitFor('helper.py shown', () => (vscode.window.activeTextEditor?.document.uri.fsPath === file ? vscode.window.activeTextEditor : undefined), 120_000);
    assert.equal(shown.selection.active.line, 1, 'IPython’s line 2');
  });

  it('in a notebook: %load replaces the cell’s source, update_display the earlier cell’s output', async () => {
    const nb = await vscode.workspace.openNotebookDocument(fileUri('payloads.ipynb'));
    await vscode.window.showNotebookDocument(nb);
    await vscode.commands.executeCommand('notebook.selectKernel', { id: 'backyard-notebook', extension: 'backyard-ls.backyard-ls' });
    await vscode.commands.executeCommand('notebook.execute');
    const c = (i: number) => nb.cellAt(i);
    await waitFor('the last cell’s result', () => c(2).executionSummary?.success !== undefined, 120_000);
    assert.deepEqual([0, 1, 2].map((i) => c(i).executionSummary?.success), [true, true, true]);
    assert.equal(c(0).document.getText(), '# %load helper.py\n' + helper);
    assert.deepEqual(c(0).outputs, [], 'the payload is no output');
    const shown = () => c(1).outputs.flatMap((o) => o.items.filter((i) => i.mime === 'text/plain').map((i) => decoder.decode(i.data)));
    await waitFor('the first display updated', () => shown().join() === "'second'");
    assert.equal(c(1).executionSummary?.executionOrder, 2, 'the cell keeps its execution count');
    assert.equal(c(1).executionSummary?.success, true);
    await nb.save();
  });
});
