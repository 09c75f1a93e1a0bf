// A NotebookController for .ipynb: each notebook gets its own kernel in the
// server. The server keeps kernels per open text document, so each notebook
// is given a document of its own (the notebook's uri with a fragment) that
// the extension opens itself; a cell runs by making that document's text the
// cell's text and sending backyard.runRange over all of it. Cells of one
// notebook run one after another; output streams in as backyard/output.
// A run that set its cell's next input (IPython's %load) gets that text as
// the cell's source, as Jupyter does; a # %% file gets it from the server.

import * as vscode from 'vscode';
import type { ServerApi } from './client';
import { displayItems, displayOutput, executionOutputs, errorLineOf } from './notebookOutput';
import { Cmd, isPayload, nextInput, rangeArg, type Display, type DisplayParams, type Execution, type KernelInfo, type OutputParams, type Range, type RunResult } from './protocol';
import { errorLine } from './render';

export const controllerId = 'backyard-notebook';
export const controllerLabel = 'backyard (sandboxed)';
export const kernelFragment = 'backyard-kernel';

/** The server's view of the notebook kernels' documents: opened, changed and closed by the extension. */
export interface DocSync {
  open(uri: string, text: string, version: number): Promise<void>;
  change(uri: string, text: string, version: number): Promise<void>;
  close(uri: string): Promise<void>;
}

/** The stable per-notebook kernel document uri. */
export function kernelUri(notebook: vscode.Uri): string {
  return notebook.with({ fragment: kernelFragment }).toString();
}

export function isKernelUri(uri: string): boolean {
  return uri.endsWith(`#${kernelFragment}`);
}

/** The range covering all of text, in UTF-16 units as LSP counts them. */
export function wholeRange(text: string): Range {
  const lines = text.split('\n');
  const last = lines[lines.length - 1]!;
  return { start: { line: 0, character: 0 }, end: { line: lines.length - 1, character: last.length } };
}

interface Running {
  exec: vscode.NotebookCellExecution;
  streams: Partial<Record<'stdout' | 'stderr', vscode.NotebookCellOutput>>;
  /** The display outputs shown so far, by display id (update_display replaces their items). */
  byId: Map<string, vscode.NotebookCellOutput[]>;
  /** Output edits, applied in order. */
  ops: Promise<unknown>;
  /** The execution's id, from its first notification (the server tells an update to the running execution first). */
  id?: string;
}

interface NotebookKernel {
  uri: string;
  version: number;
  /** Whether the server has the document open (false again after the server restarts). */
  open: boolean;
  /** Runs of this notebook, one after another. */
  chain: Promise<void>;
  /** Bumped by interrupt and restart: runs queued before that do not start. */
  epoch: number;
  running?: Running;
  /** Updates of other cells' outputs, applied in order. */
  updates: Promise<unknown>;
}

export class NotebookKernels implements vscode.Disposable {
  readonly controller: vscode.NotebookController;
  private readonly kernels = new Map<string, NotebookKernel>();
  /** Notebooks whose selected kernel is this controller. */
  private readonly selected = new Set<string>();
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('backyard-notebook');
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly api: ServerApi,
    private readonly sync: DocSync,
    private readonly onKernelInfo: (uri: string, info: KernelInfo) => void = () => {},
  ) {
    const c = vscode.notebooks.createNotebookController(controllerId, 'jupyter-notebook', controllerLabel);
    c.supportedLanguages = ['python'];
    c.supportsExecutionOrder = true;
    c.description = 'a sandboxed kernel per notebook';
    c.detail = 'backyard-ls: Monty, or a container when a cell needs full CPython (backyard.backend)';
    c.executeHandler = (cells, notebook) => this.execute(cells, notebook);
    c.interruptHandler = (notebook) => this.interrupt(notebook);
    this.controller = c;
    this.disposables.push(
      c,
      c.onDidChangeSelectedNotebooks(({ notebook, selected }) => {
        if (selected) this.selected.add(notebook.uri.toString());
        else this.selected.delete(notebook.uri.toString());
      }),
      this.diagnostics,
      vscode.workspace.onDidCloseNotebookDocument((nb) => void this.close(nb)),
      vscode.workspace.onDidChangeTextDocument((ev) => {
        // An edited cell's error marker describes code that is gone.
        if (ev.document.uri.scheme === 'vscode-notebook-cell' && ev.contentChanges.length > 0) this.diagnostics.delete(ev.document.uri);
      }),
    );
  }

  /** Whether the user picked this controller for the notebook. */
  isSelected(notebook: vscode.NotebookDocument): boolean {
    return this.selected.has(notebook.uri.toString());
  }

  /** Whether the server has the notebook's kernel document open (it ran a cell, or a command needed it). */
  isOpen(notebook: vscode.NotebookDocument): boolean {
    return this.kernels.get(notebook.uri.toString())?.open ?? false;
  }

  /** Opens the notebook's kernel document (empty) so kernel commands can name it before any cell ran. */
  async ensureOpen(notebook: vscode.NotebookDocument): Promise<string> {
    const k = this.kernel(notebook);
    if (!k.open) {
      // Marked first: notifications go out in order, so a run that starts meanwhile sends a change, not a second open.
      k.open = true;
      k.version++;
      await this.sync.open(k.uri, '', k.version);
    }
    return k.uri;
  }

  /** "report.ipynb [cell 3]" for the cell running in a kernel document, for the log. */
  runningLabel(uri: string): string | undefined {
    const r = [...this.kernels.values()].find((k) => k.uri === uri)?.running;
    if (!r) return undefined;
    const nb = r.exec.cell.notebook.uri.path;
    return `${nb.slice(nb.lastIndexOf('/') + 1)} [cell ${r.exec.cell.index + 1}]`;
  }

  /** The server restarted: it has none of the kernel documents any more. */
  serverRestarted(): void {
    for (const k of this.kernels.values()) k.open = false;
  }

  /** backyard/output for a kernel document: stream it into the running cell. */
  onOutput(p: OutputParams): void {
    const k = [...this.kernels.values()].find((x) => x.uri === p.uri);
    const r = k?.running;
    if (!r) return;
    r.id ??= p.executionId;
    const item = p.stream === 'stdout' ? vscode.NotebookCellOutputItem.stdout(p.text) : vscode.NotebookCellOutputItem.stderr(p.text);
    const existing = r.streams[p.stream];
    if (existing) {
      r.ops = r.ops.then(() => r.exec.appendOutputItems(item, existing));
    } else {
      const out = new vscode.NotebookCellOutput([item], { outputType: 'stream' });
      r.streams[p.stream] = out;
      r.ops = r.ops.then(() => r.exec.appendOutput(out));
    }
  }

  /**
   * backyard/display for a kernel document: the running cell shows it after
   * the output so far, as Jupyter does; an update also replaces the outputs
   * with its display id that the notebook's other cells show, as Jupyter's
   * front end finds them by display id.
   */
  onDisplay(p: DisplayParams): void {
    const k = [...this.kernels.values()].find((x) => x.uri === p.uri);
    const r = k?.running;
    if (!k || !r) return;
    r.id ??= p.executionId;
    // The server's copy of an update for an earlier execution: the notebook's cells get it below, by display id.
    if (p.executionId !== r.id) return;
    if (p.clear) {
      // clear_output: what the cell showed so far goes (the end record has the rest).
      r.streams = {};
      r.byId.clear();
      r.ops = r.ops.then(() => r.exec.clearOutput());
      return;
    }
    const d = p.display;
    if (!d || isPayload(d)) return; // a payload (%load's text for the cell), not an output
    if (p.update) {
      for (const o of r.byId.get(d.displayId ?? '') ?? []) r.ops = r.ops.then(() => r.exec.replaceOutputItems(displayItems(d), o));
      for (const cell of r.exec.cell.notebook.getCells()) {
        if (cell !== r.exec.cell && d.displayId && displayOutputs(cell, d.displayId).length > 0) {
          k.updates = k.updates.then(() => this.updateOther(cell, d)).catch(() => {});
        }
      }
      return;
    }
    const out = displayOutput(d);
    if (d.displayId) r.byId.set(d.displayId, [...(r.byId.get(d.displayId) ?? []), out]);
    r.streams = {}; // output after it starts a new stream output below it
    r.ops = r.ops.then(() => r.exec.appendOutput(out));
  }

  execute(cells: readonly vscode.NotebookCell[], notebook: vscode.NotebookDocument): Promise<void> {
    const k = this.kernel(notebook);
    const execs = cells.map((c) => this.controller.createNotebookCellExecution(c));
    const epoch = k.epoch;
    const run = async (): Promise<void> => {
      let stop = false;
      for (const exec of execs) {
        if (stop || k.epoch !== epoch || exec.token.isCancellationRequested) {
          exec.end(undefined);
          continue;
        }
        stop = !(await this.runCell(k, exec));
      }
    };
    k.chain = k.chain.then(run, run);
    return k.chain;
  }

  /** Runs one cell; false when the cells after it should not run (an error, an interrupt). */
  private async runCell(k: NotebookKernel, exec: vscode.NotebookCellExecution): Promise<boolean> {
    const cell = exec.cell;
    exec.start(Date.now());
    await exec.clearOutput();
    this.diagnostics.delete(cell.document.uri);
    const text = cell.document.getText();
    if (text.trim() === '') {
      exec.end(true, Date.now());
      return true;
    }
    const running: Running = { exec, streams: {}, byId: new Map(), ops: Promise.resolve() };
    const cancel = exec.token.onCancellationRequested(() => void this.interrupt(cell.notebook));
    let x: Execution | undefined;
    try {
      k.version++;
      if (k.open) {
        await this.sync.change(k.uri, text, k.version);
      } else {
        k.open = true;
        await this.sync.open(k.uri, text, k.version);
      }
      k.running = running;
      const res = await this.api.execute<RunResult>(Cmd.runRange, rangeArg(k.uri, wholeRange(text)));
      x = res.executions?.[0];
    } catch (err) {
      await running.ops;
      await exec.replaceOutput(new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.error(asError(err))]));
      exec.end(false, Date.now());
      return false;
    } finally {
      cancel.dispose();
      k.running = undefined;
    }
    await running.ops;
    if (!x) {
      // Dropped before it ran (an interrupt or restart came first).
      exec.end(undefined, Date.now());
      return false;
    }
    if (x.executionCount > 0) exec.executionOrder = x.executionCount;
    await exec.replaceOutput(executionOutputs(x));
    this.markError(cell, x);
    exec.end(x.status === 'ok', Date.now());
    const next = nextInput(x);
    // %load: the cell's text becomes the payload's, as Jupyter replaces the cell; an edit made while it ran is kept.
    if (next !== undefined && cell.document.getText() === text) await replaceText(cell.document, next);
    return x.status === 'ok';
  }

  /**
   * update_display of a display another cell shows: only a cell execution
   * can change outputs, so a short one on that cell replaces them, keeping
   * the cell's execution order, success and times. A cell running or queued
   * again is left alone (its new run replaces its outputs).
   */
  private async updateOther(cell: vscode.NotebookCell, d: Display): Promise<void> {
    const outs = displayOutputs(cell, d.displayId ?? '');
    if (outs.length === 0) return;
    const before = cell.executionSummary;
    let exec: vscode.NotebookCellExecution;
    try {
      exec = this.controller.createNotebookCellExecution(cell);
    } catch {
      return;
    }
    exec.start(before?.timing?.startTime);
    if (before?.executionOrder !== undefined) exec.executionOrder = before.executionOrder;
    try {
      for (const o of outs) await exec.replaceOutputItems(displayItems(d), o);
    } finally {
      exec.end(before?.success, before?.timing?.endTime);
    }
  }

  private markError(cell: vscode.NotebookCell, x: Execution): void {
    const line = errorLineOf(x);
    if (!x.error || line === undefined || line >= cell.document.lineCount) return;
    const range = cell.document.lineAt(line).range;
    const d = new vscode.Diagnostic(range, errorLine(x.error), vscode.DiagnosticSeverity.Error);
    d.source = 'backyard';
    this.diagnostics.set(cell.document.uri, [d]);
  }

  async interrupt(notebook: vscode.NotebookDocument): Promise<void> {
    const k = this.kernels.get(notebook.uri.toString());
    if (!k) return;
    k.epoch++;
    if (k.open) await this.api.execute(Cmd.interrupt, { uri: k.uri });
  }

  /** Restart: queued cells are dropped, the running one stopped, the namespace emptied. */
  async restart(notebook: vscode.NotebookDocument): Promise<KernelInfo | undefined> {
    const k = this.kernels.get(notebook.uri.toString());
    if (!k) return undefined;
    k.epoch++;
    if (!k.open) return undefined;
    const info = await this.api.execute<KernelInfo>(Cmd.restart, { uri: k.uri });
    this.onKernelInfo(k.uri, info);
    return info;
  }

  private kernel(notebook: vscode.NotebookDocument): NotebookKernel {
    const key = notebook.uri.toString();
    let k = this.kernels.get(key);
    if (!k) {
      k = { uri: kernelUri(notebook.uri), version: 0, open: false, chain: Promise.resolve(), epoch: 0, updates: Promise.resolve() };
      this.kernels.set(key, k);
    }
    return k;
  }

  private async close(notebook: vscode.NotebookDocument): Promise<void> {
    const key = notebook.uri.toString();
    this.selected.delete(key);
    const k = this.kernels.get(key);
    this.kernels.delete(key);
    for (const cell of notebook.getCells()) this.diagnostics.delete(cell.document.uri);
    if (k?.open) await this.sync.close(k.uri);
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}

/** A cell's outputs showing the display with that id (displayOutput keeps it as the ipynb serializer does). */
function displayOutputs(cell: vscode.NotebookCell, displayId: string): vscode.NotebookCellOutput[] {
  return cell.outputs.filter((o) => (o.metadata?.transient as { display_id?: string } | undefined)?.display_id === displayId);
}

/** Replaces all of a cell's text, keeping its outputs and execution order. */
async function replaceText(doc: vscode.TextDocument, text: string): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(new vscode.Position(0, 0), doc.lineAt(doc.lineCount - 1).range.end), text);
  await vscode.workspace.applyEdit(edit);
}

function asError(err: unknown): Error {
  if (err instanceof Error) return err;
  return new Error(String(err));
}
