// The keybindings, pressed as keys in the page: Ctrl+Enter runs the cell at
// the cursor, Shift+Enter runs it and moves to the next cell (adding one
// after the last), Shift+Enter with a selection runs the selection.

import * as assert from 'node:assert/strict';
import { before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { activated, bridge, editorTitleActions, inlineResult, openEditor, statusLens, waitFor } from './helpers';

describe('keybindings', () => {
  let ed: vscode.TextEditor;

  // Puts the cursor (or a selection) in keys.py and waits until the page shows it in the focused editor.
  const place = async (line: number, character = 0, endCharacter = character): Promise<void> => {
    ed = await openEditor('keys.py');
    ed.selection = new vscode.Selection(line, character, line, endCharacter);
    const want = `Ln ${line + 1}, Col ${endCharacter + 1}${endCharacter > character ? ` (${endCharacter - character} selected)` : ''}`;
    await waitFor(`the focused editor at ${want}`, async () => {
      const focused = (await bridge<string[]>('texts', { selector: '.monaco-editor.focused .view-lines' })).length > 0;
      const at = await bridge<string[]>('texts', { selector: '[id="status.editor.selection"]' });
      return focused && at[0]?.trim() === want;
    });
  };

  // Run All Cells is in the editor title when backyard.hasCells is set: the context key the keys' when clause needs.
  const runAllShown = async (): Promise<boolean> => (await editorTitleActions()).some((a) => a.startsWith('Run All Cells'));

  before(async () => {
    ed = await openEditor('keys.py');
    await activated();
    await waitFor('Run All Cells in the editor title of keys.py', runAllShown);
  });

  it('Ctrl+Enter runs the cell at the cursor and leaves the cursor there', async () => {
    await place(1, 3);
    await bridge('press', { keys: 'Control+Enter' });
    await statusLens(ed.document.uri, 0, /^\[1\] ✓ /);
    await inlineResult(/^\[1\] ✓ 1$/);
    assert.equal(vscode.window.activeTextEditor?.selection.active.line, 1);
    // Not VS Code's own Ctrl+Enter (insert a line below).
    assert.equal(ed.document.lineCount, 8);
  });

  it('Shift+Enter runs the cell and moves to the next cell’s first line', async () => {
    await place(2);
    await bridge('press', { keys: 'Shift+Enter' });
    await statusLens(ed.document.uri, 0, /^\[2\] ✓ /);
    await waitFor('the cursor on line 6', () => vscode.window.activeTextEditor?.selection.active.line === 5);
    // The text did not change: nothing was typed into it.
    assert.equal(ed.document.lineCount, 8);
  });

  it('Shift+Enter on the last cell runs it and adds a new cell below', async () => {
    await place(5);
    await bridge('press', { keys: 'Shift+Enter' });
    await statusLens(ed.document.uri, 4, /^\[3\] ✓ /);
    await inlineResult(/^\[3\] ✓ 2$/);
    const doc = ed.document;
    await waitFor('a new # %% cell at the end', () => doc.getText().endsWith('b\n\n# %%\n'));
    assert.equal(vscode.window.activeTextEditor?.selection.active.line, doc.lineCount - 1);
    await vscode.commands.executeCommand('undo');
    await waitFor('the new cell undone', () => doc.lineCount === 8);
  });

  it('Shift+Enter with a selection runs exactly the selection', async () => {
    // "a + 1" on line 6 ("b = a + 1").
    await place(5, 4, 9);
    assert.equal(ed.document.getText(ed.selection), 'a + 1');
    await bridge('press', { keys: 'Shift+Enter' });
    await inlineResult(/^\[4\] ✓ 2$/);
    // The selection stayed; the cursor did not move to another cell.
    assert.equal(vscode.window.activeTextEditor?.selection.active.line, 5);
  });

  it('Ctrl+Enter in a file without # %% markers is VS Code’s own (insert a line), not a run', async () => {
    const plain = await openEditor('plain.py');
    plain.selection = new vscode.Selection(0, 0, 0, 0);
    // Focused at line 1, with backyard.hasCells cleared: Run All Cells gone from a drawn editor title.
    await waitFor('plain.py focused at line 1, without Run All Cells', async () => {
      const at = await bridge<string[]>('texts', { selector: '[id="status.editor.selection"]' });
      const actions = await editorTitleActions();
      return at[0]?.trim() === 'Ln 1, Col 1' && actions.length > 0 && !(await runAllShown());
    });
    await bridge('press', { keys: 'Control+Enter' });
    await waitFor('a line inserted below', () => plain.document.lineCount === 4);
    await vscode.commands.executeCommand('undo');
    await waitFor('the inserted line undone', () => plain.document.lineCount === 3);
    // The file's first run is [1]: the key started none before it.
    await vscode.commands.executeCommand('backyard.editor.runCell');
    await statusLens(plain.document.uri, 0, /^\[1\] ✓ /);
  });
});
