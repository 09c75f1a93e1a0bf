// Code lenses come from the server, and running a cell from one (clicked in
// the editor, or its command called as the lens carries it) shows the
// status lens and the inline result.

import * as assert from 'node:assert/strict';
import { before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { activated, afterTexts, bridge, fileUri, inlineResult, lenses, openEditor, statusLens, waitFor } from './helpers';

describe('code lenses', () => {
  const uri = () => fileUri('lens.py');

  before(async () => {
    await openEditor('lens.py');
    await activated();
  });

  it('are the server’s, on each code cell’s header line', async () => {
    const ls = await waitFor('lenses on lens.py', async () => {
      const l = await lenses(uri());
      return l.length >= 5 ? l : undefined;
    });
    const at = (line: number) => ls.filter((l) => l.line === line).map((l) => l.title);
    assert.deepEqual(at(0), ['▶ Run Cell', 'Run Below']);
    assert.deepEqual(at(4), ['▶ Run Cell', 'Run Above', 'Run Below']);
    const run = ls.find((l) => l.line === 4 && l.title === '▶ Run Cell')!;
    assert.equal(run.command, 'backyard.runCell');
    assert.deepEqual(run.args, [{ uri: uri().toString(), line: 4 }]);
  });

  it('are drawn in the editor, and clicking ▶ Run Cell runs that cell', async () => {
    await waitFor('the ▶ Run Cell lens in the page', async () => (await bridge<string[]>('texts', { selector: '.codelens-decoration' })).some((t) => t.includes('Run Cell')));
    assert.equal((await afterTexts()).length, 0, 'an inline result before any run');
    await bridge('click', { selector: '.codelens-decoration a', text: 'Run Cell' });
    const status = await statusLens(uri(), 0, /^\[1\] ✓ /);
    assert.match(status, /^\[1\] ✓ [\d.]+ (ms|s) · monty$/);
    const shown = await inlineResult(/^\[1\] ✓ 42$/);
    assert.equal(shown.line.trim(), 'x', 'the result is not after the cell’s last line');
    // The second cell did not run.
    assert.equal((await lenses(uri())).filter((l) => l.line === 4 && l.command === '').length, 0);
  });

  it('run the cell when their command is called with the lens’s arguments', async () => {
    const lens = (await lenses(uri())).find((l) => l.line === 4 && l.title === '▶ Run Cell')!;
    await vscode.commands.executeCommand(lens.command, ...lens.args);
    assert.match(await statusLens(uri(), 4, /^\[2\] /), /^\[2\] ✓ .* · monty$/);
    // No value: the inline result is the last line printed.
    await inlineResult(/^\[2\] ✓ hello from the second cell$/);
    const vars = await vscode.commands.executeCommand<{ variables: { name: string; repr: string }[] }>('backyard.variables', { uri: uri().toString() });
    assert.equal(vars.variables.find((v) => v.name === 'y')?.repr, '43');
  });

  it('Run Below, clicked on the first cell, runs both cells in order', async () => {
    await bridge('click', { selector: '.codelens-decoration a', text: 'Run Below' });
    await statusLens(uri(), 0, /^\[3\] ✓ /);
    await statusLens(uri(), 4, /^\[4\] ✓ /);
    await inlineResult(/^\[3\] ✓ 42$/);
  });
});
