// input() in a cell: the extension answers the server's backyard/input with
// an input box; Escape dismisses it and the cell is interrupted.

import * as assert from 'node:assert/strict';
import { before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { activated, bridge, inlineResult, openEditor, waitFor } from './helpers';

const box = '.quick-input-widget';

async function inputBox(): Promise<{ title: string; message: string }> {
  return waitFor('the input box', async () => {
    const [title] = await bridge<string[]>('texts', { selector: `${box} .quick-input-title` });
    const [message] = await bridge<string[]>('texts', { selector: `${box} .quick-input-message` });
    return title ? { title, message: message ?? '' } : undefined;
  });
}

describe('input()', () => {
  let ed: vscode.TextEditor;

  before(async () => {
    ed = await openEditor('input.py');
    await activated();
  });

  it('asks in an input box with the prompt, and the answer reaches the cell', async () => {
    ed.selection = new vscode.Selection(1, 0, 1, 0);
    await vscode.commands.executeCommand('backyard.editor.runCell');
    const shown = await inputBox();
    assert.equal(shown.title, 'backyard: input() in input.py');
    assert.match(shown.message, /name\?/);
    await bridge('type', { text: 'Ada' });
    await bridge('press', { keys: 'Enter' });
    await inlineResult(/^\[1\] ✓ 'Ada'$/);
  });

  it('Escape dismisses it: the cell is interrupted', async () => {
    ed.selection = new vscode.Selection(1, 0, 1, 0);
    await vscode.commands.executeCommand('backyard.editor.runCell');
    await inputBox();
    await bridge('press', { keys: 'Escape' });
    await inlineResult(/^\[2\] ■ interrupted$/);
  });
});
