// The status bar item, interrupt and restart.

import * as assert from 'node:assert/strict';
import { before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { activated, bridge, fileUri, inlineResult, kernelItem, kernelStatusIs, openEditor, quickPickRows, server, statusLens, waitFor } from './helpers';

interface Vars {
  variables: { name: string; type: string; repr: string }[];
}

describe('the kernel', () => {
  const uri = () => fileUri('kernel.py');
  let ed: vscode.TextEditor;

  before(async () => {
    ed = await openEditor('kernel.py');
    await activated();
  });

  it('shows in the status bar: backend and state', async () => {
    await server('backyard.runCell', { uri: uri().toString(), line: 0, wait: true });
    await kernelStatusIs('“monty · idle” in the status bar', (t) => t === 'monty · idle');
  });

  it('is busy while a cell runs, and Interrupt Kernel stops it and keeps the namespace', async () => {
    ed.selection = new vscode.Selection(6, 0, 6, 0);
    await vscode.commands.executeCommand('backyard.editor.runCell');
    await statusLens(uri(), 4, /^\[\*\] running…$/);
    await kernelStatusIs('“monty · busy” in the status bar', (t) => t === 'monty · busy');
    await inlineResult(/^⋯ running$/);
    await vscode.commands.executeCommand('backyard.editor.interrupt');
    await statusLens(uri(), 4, /^\[2\] ■ interrupted$/);
    const shown = await inlineResult(/^\[2\] ■ interrupted$/);
    assert.equal(shown.line.trim(), 'i += 1');
    await kernelStatusIs('“monty · idle” again', (t) => t === 'monty · idle');
    const vars = await server<Vars>('backyard.variables', { uri: uri().toString() });
    assert.equal(vars.variables.find((v) => v.name === 'n')?.repr, '5');
    // Monty's interrupt brings back the namespace from before the cell (README, "How kernels behave"):
    // the loop's i is gone. Evaluate the "i" of "    i += 1".
    const res = await server<{ executions: { status: string; error?: { ename: string } }[] }>('backyard.runRange', {
      uri: uri().toString(),
      range: { start: { line: 7, character: 4 }, end: { line: 7, character: 5 } },
      wait: true,
    });
    assert.equal(res.executions[0]?.error?.ename, 'NameError', JSON.stringify(res.executions[0]));
  });

  it('Restart Kernel empties the namespace, marks results stale and counts from 1 again', async () => {
    await vscode.commands.executeCommand('backyard.editor.restart');
    await inlineResult(/^\[1\] ✓ 5 \(stale\)$/);
    await statusLens(uri(), 0, /^\[1\] ✓ .*\(stale\)$/);
    const vars = await server<Vars>('backyard.variables', { uri: uri().toString() });
    assert.deepEqual(vars.variables, []);
    ed.selection = new vscode.Selection(1, 0, 1, 0);
    await vscode.commands.executeCommand('backyard.editor.runCell');
    await inlineResult(/^\[1\] ✓ 5$/);
  });

  it('clicking the status bar item offers the backends', async () => {
    await bridge('click', { selector: kernelItem });
    const items = await waitFor('the backend quick pick', async () => {
      const t = await quickPickRows();
      return t.length >= 3 ? t : undefined;
    });
    assert.equal(items.length, 3);
    assert.match(items[0]!, /^auto, Monty, moving to a container/);
    assert.match(items[1]!, /^monty, \(current\), sandboxed interpreter/);
    assert.match(items[2]!, /^container, Docker\/Podman container/);
    await bridge('press', { keys: 'Escape' });
  });
});
