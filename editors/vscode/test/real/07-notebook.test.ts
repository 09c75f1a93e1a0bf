// A Jupyter notebook run through the notebook controller: text, stream and
// error outputs from Monty, then a PNG from matplotlib after the notebook's
// kernel moved to the container (auto backend).

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { activated, bridge, fileUri, kernelStatusIs, waitFor } from './helpers';

const decoder = new TextDecoder();
const itemsOf = (c: vscode.NotebookCell) => c.outputs.flatMap((o) => o.items);
const text = (c: vscode.NotebookCell, mime: string) =>
  itemsOf(c)
    .filter((i) => i.mime === mime)
    .map((i) => decoder.decode(i.data))
    .join('');

describe('a notebook on the backyard kernel', () => {
  let nb: vscode.NotebookDocument;

  before(async () => {
    await activated();
    nb = await vscode.workspace.openNotebookDocument(fileUri('plot.ipynb'));
    await vscode.window.showNotebookDocument(nb);
    await vscode.commands.executeCommand('notebook.selectKernel', { id: 'backyard-notebook', extension: 'backyard-ls.backyard-ls' });
  });

  it('runs every cell in order until the first error', async () => {
    await vscode.commands.executeCommand('notebook.execute');
    const c = (i: number) => nb.cellAt(i);
    await waitFor('the third cell’s result', () => c(2).executionSummary?.success !== undefined, 120_000);
    assert.equal(c(0).executionSummary?.success, true);
    assert.equal(c(1).executionSummary?.success, true, text(c(1), 'application/vnd.code.notebook.error'));
    assert.equal(c(2).executionSummary?.success, false);
    assert.equal(c(3).executionSummary?.executionOrder, undefined, 'a cell after the error ran');
    const orders = [0, 1, 2].map((i) => c(i).executionSummary?.executionOrder ?? 0);
    assert.ok(orders[0]! > 0 && orders[0]! < orders[1]! && orders[1]! < orders[2]!, `execution counts ${orders}`);
  });

  it('shows stdout and the value as text', () => {
    const c = nb.cellAt(0);
    assert.equal(text(c, 'application/vnd.code.notebook.stdout'), 'x is 42\n');
    assert.equal(text(c, 'text/plain'), '42');
  });

  it('shows a matplotlib figure as a PNG', async () => {
    const png = itemsOf(nb.cellAt(1)).find((i) => i.mime === 'image/png');
    assert.ok(png, `no image/png among ${itemsOf(nb.cellAt(1)).map((i) => i.mime)}`);
    assert.deepEqual([...png.data.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.ok(png.data.length > 1000);
    // The renderer draws it in the notebook's output webview.
    await waitFor('an image in the notebook output', async () => (await bridge<number>('framesImages', { mime: 'image/png' })) > 0, 20_000);
  });

  it('shows the error with its name and message, marked on the cell’s line, not on a file', () => {
    const err = itemsOf(nb.cellAt(2)).find((i) => i.mime === 'application/vnd.code.notebook.error');
    assert.ok(err);
    const e = JSON.parse(decoder.decode(err.data)) as { name: string; message: string };
    assert.equal(e.name, 'ZeroDivisionError');
    assert.equal(e.message, 'division by zero');
    const marks = vscode.languages.getDiagnostics(nb.cellAt(2).document.uri);
    assert.equal(marks.length, 1);
    assert.equal(marks[0]!.range.start.line, 0);
    assert.match(marks[0]!.message, /ZeroDivisionError: division by zero/);
    // The server's diagnostics of the notebook's kernel document stay out of the Problems view.
    const kernelDocs = vscode.languages.getDiagnostics().filter(([u]) => u.fragment === 'backyard-kernel');
    assert.deepEqual(kernelDocs, []);
  });

  it('keeps the namespace across the move to the container', async () => {
    await vscode.commands.executeCommand('notebook.cell.execute', { ranges: [{ start: 3, end: 4 }], document: nb.uri });
    await waitFor('the fourth cell’s result', () => nb.cellAt(3).executionSummary?.success !== undefined, 60_000);
    assert.equal(text(nb.cellAt(3), 'text/plain'), '43');
  });

  it('Restart Kernel empties the namespace and counts from 1', async () => {
    await vscode.commands.executeCommand('backyard.editor.restart');
    await vscode.commands.executeCommand('notebook.cell.execute', { ranges: [{ start: 3, end: 4 }], document: nb.uri });
    await waitFor('the fourth cell’s error', () => nb.cellAt(3).executionSummary?.success === false, 60_000);
    assert.match(text(nb.cellAt(3), 'application/vnd.code.notebook.error'), /NameError/);
    assert.equal(nb.cellAt(3).executionSummary?.executionOrder, 1);
  });

  it('the notebook’s stop button (cancel execution) interrupts the running cell', async () => {
    const edit = new vscode.WorkspaceEdit();
    edit.set(nb.uri, [vscode.NotebookEdit.insertCells(4, [new vscode.NotebookCellData(vscode.NotebookCellKind.Code, 'while True:\n    pass', 'python')])]);
    assert.ok(await vscode.workspace.applyEdit(edit));
    const cell = nb.cellAt(4);
    void vscode.commands.executeCommand('notebook.cell.execute', { ranges: [{ start: 4, end: 5 }], document: nb.uri });
    await kernelStatusIs('the notebook’s kernel busy', (t) => t.endsWith('· busy'), 60_000);
    await vscode.commands.executeCommand('notebook.cell.cancelExecution', { ranges: [{ start: 4, end: 5 }], document: nb.uri });
    await waitFor('the cell to end', () => cell.executionSummary?.success !== undefined, 30_000);
    assert.equal(cell.executionSummary?.success, false);
    assert.match(text(cell, 'application/vnd.code.notebook.error'), /KeyboardInterrupt/);
    await kernelStatusIs('the notebook’s kernel idle', (t) => t.endsWith('· idle'));
  });

  it('runs again after the server died: the client restarts it and the notebook gets a new kernel', async () => {
    const [pid] = childrenNamed(process.pid, 'backyard-ls');
    assert.ok(pid, 'no backyard-ls child of the extension host');
    process.kill(pid, 'SIGKILL');
    await waitFor('a new backyard-ls', () => childrenNamed(process.pid, 'backyard-ls').some((p) => p !== pid), 30_000);
    await vscode.commands.executeCommand('notebook.cell.execute', { ranges: [{ start: 0, end: 1 }], document: nb.uri });
    await waitFor('the first cell run again', () => nb.cellAt(0).executionSummary?.executionOrder === 1 && nb.cellAt(0).executionSummary?.success === true, 60_000);
    assert.equal(text(nb.cellAt(0), 'text/plain'), '42');
  });
});

/** Live child processes of parent whose command name is comm (Linux /proc). */
function childrenNamed(parent: number, comm: string): number[] {
  const out: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (name === comm && Number(fields[1]) === parent && fields[0] !== 'Z') out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
