// An Execution as notebook cell outputs: stdout and stderr streams, the
// display outputs, the value (its MIME bundle plus text/plain) and the error. Output metadata
// follows the ipynb serializer's convention, so a saved notebook holds
// stream, execute_result and error outputs with the execution count.

import * as vscode from 'vscode';
import type { Execution, ExecutionError } from './protocol';
import { formatTraceback, noteLine } from './render';

/** MIME types whose data the server sends base64-encoded. */
const binary = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp']);

export function valueItems(value: NonNullable<Execution['result']>): vscode.NotebookCellOutputItem[] {
  return bundleItems(value.mime ?? {}, value.mime?.['text/plain'] ?? value.text);
}

/** A MIME bundle's items, the rich forms first and text/plain last. */
function bundleItems(bundle: Record<string, string>, text: string | undefined): vscode.NotebookCellOutputItem[] {
  const items: vscode.NotebookCellOutputItem[] = [];
  for (const [mime, data] of Object.entries(bundle)) {
    if (mime === 'text/plain') continue;
    if (binary.has(mime)) items.push(new vscode.NotebookCellOutputItem(Buffer.from(data, 'base64'), mime));
    else items.push(vscode.NotebookCellOutputItem.text(data, mime));
  }
  if (text !== undefined) items.push(vscode.NotebookCellOutputItem.text(text, 'text/plain'));
  return items;
}

/** The error item; runs stopped without a Python exception still read as one. */
export function errorItem(x: Execution): vscode.NotebookCellOutputItem | undefined {
  const err: ExecutionError | undefined =
    x.error ??
    (x.status === 'interrupted'
      ? { ename: 'KeyboardInterrupt', evalue: 'the cell was interrupted', traceback: [] }
      : x.status === 'timeout'
        ? { ename: 'TimeoutError', evalue: 'the cell ran past its time limit (backyard.timeout)', traceback: [] }
        : x.status === 'crashed'
          ? { ename: 'KernelCrashed', evalue: 'the kernel crashed; the next run starts a fresh one', traceback: [] }
          : undefined);
  if (!err) return undefined;
  const e = new Error(err.evalue);
  e.name = err.ename;
  e.stack = [formatTraceback(err), ...(x.notes ?? []).map(noteLine)].join('\n');
  return vscode.NotebookCellOutputItem.error(e);
}

export function executionOutputs(x: Execution): vscode.NotebookCellOutput[] {
  const out: vscode.NotebookCellOutput[] = [];
  if (x.stdout) out.push(new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.stdout(x.stdout)], { outputType: 'stream' }));
  if (x.stderr) out.push(new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.stderr(x.stderr)], { outputType: 'stream' }));
  for (const d of x.displays ?? []) {
    const meta: Record<string, unknown> = { outputType: 'display_data' };
    if (d.metadata !== undefined) meta.metadata = d.metadata;
    if (d.displayId) meta.transient = { display_id: d.displayId };
    out.push(new vscode.NotebookCellOutput(bundleItems(d.data, d.data['text/plain']), meta));
  }
  if (x.result) {
    const meta: Record<string, unknown> = { outputType: 'execute_result' };
    if (x.executionCount > 0) meta.executionCount = x.executionCount;
    out.push(new vscode.NotebookCellOutput(valueItems(x.result), meta));
  }
  const err = errorItem(x);
  if (err) out.push(new vscode.NotebookCellOutput([err], { outputType: 'error' }));
  return out;
}

/** The 0-based cell line a diagnostic goes on: the innermost frame inside the cell, else none. */
export function errorLineOf(x: Execution): number | undefined {
  const tb = x.error?.traceback ?? [];
  for (let i = tb.length - 1; i >= 0; i--) if (tb[i]!.line >= 0) return tb[i]!.line;
  return undefined;
}
