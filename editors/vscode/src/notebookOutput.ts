// An Execution as notebook cell outputs: stdout and stderr streams, the
// display outputs, the value (its MIME bundle plus text/plain) and the error. Output metadata
// follows the ipynb serializer's convention, so a saved notebook holds
// stream, execute_result and error outputs with the execution count.

import * as vscode from 'vscode';
import { isPayload, type Display, type Execution, type ExecutionError } from './protocol';
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

/** A display as a display_data output (its display id kept, as the ipynb serializer keeps it). */
export function displayOutput(d: Display): vscode.NotebookCellOutput {
  const meta: Record<string, unknown> = { outputType: 'display_data' };
  if (d.metadata !== undefined) meta.metadata = d.metadata;
  if (d.displayId) meta.transient = { display_id: d.displayId };
  return new vscode.NotebookCellOutput(displayItems(d), meta);
}

/** A display's items, the rich forms first. */
export function displayItems(d: Display): vscode.NotebookCellOutputItem[] {
  return bundleItems(d.data, d.data['text/plain']);
}

/**
 * A run's outputs in Jupyter's order: each display where it was shown among
 * stdout and stderr (the text printed before it comes first), the value,
 * then the displays shown after it (the inline backend's figures), then the
 * error. Between two displays stdout goes before stderr.
 */
export function executionOutputs(x: Execution): vscode.NotebookCellOutput[] {
  const out: vscode.NotebookCellOutput[] = [];
  // Offsets are UTF-8 bytes of the record's streams.
  const streams = { stdout: Buffer.from(x.stdout, 'utf8'), stderr: Buffer.from(x.stderr, 'utf8') };
  const done = { stdout: 0, stderr: 0 };
  const flush = (upTo: { stdout: number; stderr: number }): void => {
    for (const s of ['stdout', 'stderr'] as const) {
      const end = Math.min(Math.max(upTo[s], done[s]), streams[s].length);
      if (end <= done[s]) continue;
      const text = streams[s].subarray(done[s], end).toString('utf8');
      done[s] = end;
      const item = s === 'stdout' ? vscode.NotebookCellOutputItem.stdout(text) : vscode.NotebookCellOutputItem.stderr(text);
      out.push(new vscode.NotebookCellOutput([item], { outputType: 'stream' }));
    }
  };
  const display = (d: Display): void => {
    out.push(displayOutput(d));
  };
  // A payload is no output: the controller puts %load's text in the cell, as Jupyter does.
  const displays = (x.displays ?? []).filter((d) => !isPayload(d));
  for (const d of displays.filter((d) => !d.afterResult)) {
    flush({ stdout: d.stdoutBefore ?? 0, stderr: d.stderrBefore ?? 0 });
    display(d);
  }
  flush({ stdout: streams.stdout.length, stderr: streams.stderr.length });
  if (x.result) {
    const meta: Record<string, unknown> = { outputType: 'execute_result' };
    if (x.executionCount > 0) meta.executionCount = x.executionCount;
    out.push(new vscode.NotebookCellOutput(valueItems(x.result), meta));
  }
  displays.filter((d) => d.afterResult).forEach(display);
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
