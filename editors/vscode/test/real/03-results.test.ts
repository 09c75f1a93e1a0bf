// The inline results (decorations, read in the page) in their colours, the
// hover with the full output, and the server's diagnostic on the failing line.

import * as assert from 'node:assert/strict';
import { before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { activated, afterTexts, bridge, fileUri, inlineResult, openEditor, statusLens, waitFor } from './helpers';

// The contributed colours' defaults (package.json), dark and light, as computed CSS.
const okColours = ['rgb(137, 209, 133)', 'rgb(56, 138, 52)'];
const errorColours = ['rgb(244, 135, 113)', 'rgb(229, 20, 0)'];

const hovers = (): Promise<string[]> => bridge<string[]>('texts', { selector: '.monaco-hover .hover-contents' });

/** Moves the mouse onto the inline result containing result and returns the hover that opens. */
async function hoverOver(result: string): Promise<string> {
  // The editor sets up its hover on the first mouse interaction, so a first move may show nothing: move again.
  for (let attempt = 1; ; attempt++) {
    // Away first, so a hover already open closes and a new one opens.
    await bridge('mouseMove', { x: 5, y: 500 });
    await waitFor('no hover open', async () => (await hovers()).length === 0, 5000);
    await bridge('hoverAfter', { text: result });
    try {
      return await waitFor(`a hover over “${result}”`, async () => (await hovers()).join('\n'), 5_000);
    } catch (err) {
      if (attempt === 2) {
        await bridge('screenshot', { name: `hover ${result}` });
        throw err;
      }
    }
  }
}

describe('inline results', () => {
  const uri = () => fileUri('hover.py');

  before(async () => {
    await openEditor('hover.py');
    await activated();
    await vscode.commands.executeCommand('backyard.editor.runAll');
    await statusLens(uri(), 5, /^\[2\] ✗ ZeroDivisionError$/);
  });

  it('follow each cell’s last line, coloured by status', async () => {
    const ok = await inlineResult(/^\[1\] ✓ 42$/);
    const err = await inlineResult(/^\[2\] ✗ ZeroDivisionError: division by zero$/);
    assert.equal(ok.line.trim(), '21 * 2');
    assert.equal(err.line.trim(), 'f(0)');
    assert.notEqual(ok.className, err.className);
    const cls = (c: string) => c.split(' ').find((x) => x.startsWith('ced-'))!;
    assert.ok(okColours.includes(await bridge<string>('afterColor', { className: cls(ok.className) })), 'the ok result is not in backyard.result.ok');
    assert.ok(errorColours.includes(await bridge<string>('afterColor', { className: cls(err.className) })), 'the error result is not in backyard.result.error');
  });

  it('hover with the status, all the output and the value', async () => {
    const text = await hoverOver('✓ 42');
    assert.match(text, /\[1\] ok · monty · [\d.]+ (ms|s)/);
    assert.match(text, /line one\s+line two/);
    assert.match(text, /Out\[1\]:\s+42/);
  });

  it('hover with the traceback of an error', async () => {
    const text = await hoverOver('✗ ZeroDivisionError');
    assert.match(text, /\[2\] error · monty/);
    assert.match(text, /Traceback \(most recent call last\):/);
    assert.match(text, /line 10, in <module>\s+f\(0\)/);
    assert.match(text, /line 8, in f\s+return 10 \/ n/);
    assert.match(text, /ZeroDivisionError: division by zero/);
  });

  it('an error is a diagnostic on the failing line', async () => {
    const d = await waitFor('a backyard diagnostic', () => vscode.languages.getDiagnostics(uri()).find((x) => x.source === 'backyard'));
    assert.equal(d.range.start.line, 7);
    assert.equal(d.severity, vscode.DiagnosticSeverity.Error);
    assert.match(d.message, /ZeroDivisionError/);
  });

  it('turn stale when the cell’s code is edited', async () => {
    const ed = vscode.window.activeTextEditor!;
    await ed.edit((eb) => eb.insert(new vscode.Position(3, 6), ' + 0'));
    await inlineResult(/^\[1\] ✓ 42 \(stale\)$/);
    await statusLens(uri(), 0, /\(stale\)$/);
    // The other cell's result is untouched.
    await inlineResult(/^\[2\] ✗ ZeroDivisionError: division by zero$/);
    await vscode.commands.executeCommand('undo');
  });

  it('every run is in the backyard output channel', async () => {
    await vscode.commands.executeCommand('backyard.editor.showOutput');
    let t = '';
    const lines = await waitFor('the summary lines in the output view', async () => {
      t = (await bridge<string[]>('texts', { selector: '.part.panel .view-line' })).join('\n');
      return /\[2\] hover\.py:7 error: ZeroDivisionError: division by zero/.test(t) ? t : undefined;
    }).catch(async (err: Error) => {
      await bridge('screenshot', { name: 'output' });
      throw new Error(`${err.message}; the panel shows:\n${t}`);
    });
    // Each line names the file and the first line of the code that ran.
    assert.match(lines, /\[info\] hover\.py:2 │ line one\n.*\[info\] hover\.py:2 │ line two\n/);
    assert.match(lines, /\[info\] \[1\] hover\.py:2 ok · [\d.]+ (ms|s) · monty\n.*hover\.py:2 │ Out\[1\]: 42/);
    assert.match(lines, /\[error\] hover\.py:7 │ {3}line 8, in f\n.*\[error\] hover\.py:7 │ {5}return 10 \/ n/);
    await vscode.commands.executeCommand('workbench.action.closePanel');
  });

  it('Clear Inline Results removes them from the editor', async () => {
    await openEditor('hover.py');
    await inlineResult(/ZeroDivisionError/);
    await vscode.commands.executeCommand('backyard.editor.clearResults');
    await waitFor('no inline result', async () => (await afterTexts()).length === 0);
  });

  it('show the output while the cell runs', async () => {
    const ed = await openEditor('stream.py');
    ed.selection = new vscode.Selection(2, 0, 2, 0);
    await vscode.commands.executeCommand('backyard.editor.runCell');
    await inlineResult(/^⋯ running · first$/);
    const done = await inlineResult(/^\[1\] ✓ second$/);
    assert.equal(done.line.trim(), 'print("second")');
  });
});
