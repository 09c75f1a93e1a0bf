// Editor-side commands, under their own IDs (backyard.editor.*): the server's
// backyard.* commands are registered by the language client, and registering
// one of those IDs again would stop the client from starting.

import * as vscode from 'vscode';
import { advanceFrom } from './cells';
import type { ServerApi } from './client';
import { dirname } from 'node:path';
import { fileItems, type FileItem } from './files';
import { backends, Cmd, lineArg, rangeArg, type Backend, type FilesResult, type KernelInfo, type Range, type SaveFilesResult, type VariablesResult } from './protocol';
import { quickPickItems, type Target } from './variables';

export const EditorCmd = {
  runCell: 'backyard.editor.runCell',
  runCellAndAdvance: 'backyard.editor.runCellAndAdvance',
  runSelection: 'backyard.editor.runSelection',
  runAbove: 'backyard.editor.runAbove',
  runBelow: 'backyard.editor.runBelow',
  runAll: 'backyard.editor.runAll',
  interrupt: 'backyard.editor.interrupt',
  restart: 'backyard.editor.restart',
  pickBackend: 'backyard.editor.pickBackend',
  showVariables: 'backyard.editor.showVariables',
  refreshVariables: 'backyard.editor.refreshVariables',
  clearResults: 'backyard.editor.clearResults',
  showOutput: 'backyard.editor.showOutput',
  showDisplays: 'backyard.editor.showDisplays',
  saveFiles: 'backyard.editor.saveFiles',
} as const;

/** What the commands act on; the extension supplies the live objects. */
export interface CommandDeps {
  /** The server, or undefined (after telling the user why) when it cannot run. */
  api(): ServerApi | undefined;
  /** The active Python file, or the active notebook on the backyard kernel (its kernel document opened if needed). */
  target(): Promise<Target | undefined>;
  restartNotebook(nb: vscode.NotebookDocument): Promise<KernelInfo | undefined>;
  interruptNotebook(nb: vscode.NotebookDocument): Promise<void>;
  onKernelInfo(uri: string, info: KernelInfo): void;
  onRestarted(uri: string): void;
  clearResults(uri: string): void;
  refreshVariables(): void;
  showOutput(): void;
  /** Renders the rich outputs of run executionId, else of the cell at the cursor of editor. */
  showDisplays(executionId: string | undefined, editor: vscode.TextEditor | undefined): Promise<boolean>;
}

/** The range a Shift+Enter sends: the selection, or the cursor's whole line when nothing is selected. */
export function selectionRange(sel: vscode.Selection, doc: Pick<vscode.TextDocument, 'lineAt'>): Range {
  if (sel.isEmpty) {
    const line = sel.active.line;
    return { start: { line, character: 0 }, end: { line, character: doc.lineAt(line).text.length } };
  }
  return { start: { line: sel.start.line, character: sel.start.character }, end: { line: sel.end.line, character: sel.end.character } };
}

export function documentLines(doc: Pick<vscode.TextDocument, 'lineCount' | 'lineAt'>): string[] {
  const out: string[] = [];
  for (let i = 0; i < doc.lineCount; i++) out.push(doc.lineAt(i).text);
  return out;
}

/** Moves the cursor to the next cell after a run, adding a "# %%" cell at the end when there is none. */
export async function advance(editor: vscode.TextEditor, fromLine: number): Promise<void> {
  const doc = editor.document;
  const a = advanceFrom(documentLines(doc), fromLine);
  if (a.append !== undefined) {
    const end = doc.lineAt(doc.lineCount - 1).range.end;
    const text = a.append;
    await editor.edit((eb) => eb.insert(end, text));
  }
  const pos = new vscode.Position(a.line, 0);
  editor.selection = new vscode.Selection(pos, pos);
  editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.Default);
}

const backendDetails: Record<Backend, string> = {
  auto: 'Monty, moving to a container when a cell needs full CPython',
  monty: 'sandboxed interpreter in Rust: starts in milliseconds, no third-party packages',
  container: 'Docker/Podman container (gVisor when available): full CPython and packages',
};

export function backendItems(current: string | undefined): (vscode.QuickPickItem & { backend: Backend })[] {
  return backends.map((b) => ({ label: b, description: b === current ? '(current)' : '', detail: backendDetails[b], backend: b }));
}

function pythonEditor(): vscode.TextEditor | undefined {
  const ed = vscode.window.activeTextEditor;
  if (ed && ed.document.languageId === 'python' && ed.document.uri.scheme !== 'vscode-notebook-cell') return ed;
  void vscode.window.showInformationMessage('backyard: open a Python file to run its cells.');
  return undefined;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const guard =
    (fn: (api: ServerApi) => Promise<unknown>) =>
    async (): Promise<void> => {
      const api = deps.api();
      if (!api) return;
      try {
        await fn(api);
      } catch (err) {
        void vscode.window.showErrorMessage(`backyard: ${message(err)}`);
      }
    };
  const target = async (): Promise<Target | undefined> => {
    const t = await deps.target();
    if (!t) void vscode.window.showInformationMessage('backyard: open a Python file or a notebook on the backyard kernel first.');
    return t;
  };
  // Runs answer at once (wait: false); results arrive as backyard/executionState.
  const runAt = (command: typeof Cmd.runCell | typeof Cmd.runAbove | typeof Cmd.runBelow) =>
    guard(async (api) => {
      const ed = pythonEditor();
      if (ed) await api.execute(command, lineArg(ed.document.uri.toString(), ed.selection.active.line, false));
    });

  const reg = vscode.commands.registerCommand;
  return [
    reg(EditorCmd.runCell, runAt(Cmd.runCell)),
    reg(EditorCmd.runAbove, runAt(Cmd.runAbove)),
    reg(EditorCmd.runBelow, runAt(Cmd.runBelow)),
    reg(
      EditorCmd.runCellAndAdvance,
      guard(async (api) => {
        const ed = pythonEditor();
        if (!ed) return;
        const line = ed.selection.active.line;
        const sent = api.execute(Cmd.runCell, lineArg(ed.document.uri.toString(), line, false));
        // The request carries the text as it is now; moving on does not wait for the answer.
        await advance(ed, line);
        await sent;
      }),
    ),
    reg(
      EditorCmd.runSelection,
      guard(async (api) => {
        const ed = pythonEditor();
        if (ed) await api.execute(Cmd.runRange, rangeArg(ed.document.uri.toString(), selectionRange(ed.selection, ed.document), false));
      }),
    ),
    reg(
      EditorCmd.runAll,
      guard(async (api) => {
        const ed = pythonEditor();
        if (ed) await api.execute(Cmd.runAll, { uri: ed.document.uri.toString(), wait: false });
      }),
    ),
    reg(
      EditorCmd.interrupt,
      guard(async (api) => {
        const t = await target();
        if (!t) return;
        if (t.notebook) await deps.interruptNotebook(t.notebook);
        else await api.execute(Cmd.interrupt, { uri: t.uri });
      }),
    ),
    reg(
      EditorCmd.restart,
      guard(async (api) => {
        const t = await target();
        if (!t) return;
        const info = t.notebook ? await deps.restartNotebook(t.notebook) : await api.execute<KernelInfo>(Cmd.restart, { uri: t.uri });
        if (info) deps.onKernelInfo(t.uri, info);
        deps.onRestarted(t.uri);
      }),
    ),
    reg(
      EditorCmd.pickBackend,
      guard(async (api) => {
        const t = await target();
        if (!t) return;
        const current = await api.execute<KernelInfo>(Cmd.kernelInfo, { uri: t.uri }).catch(() => undefined);
        const pick = await vscode.window.showQuickPick(backendItems(current?.backend), {
          title: `backyard: backend of ${t.label}'s kernel`,
          placeHolder: 'Switching closes the kernel; the next run starts one on the new backend.',
        });
        if (!pick) return;
        const info = await api.execute<KernelInfo>(Cmd.setBackend, { uri: t.uri, backend: pick.backend });
        deps.onKernelInfo(t.uri, info);
        deps.onRestarted(t.uri);
      }),
    ),
    reg(
      EditorCmd.showVariables,
      guard(async (api) => {
        const t = await target();
        if (!t) return;
        const res = await api.execute<VariablesResult>(Cmd.variables, { uri: t.uri });
        if (res.variables.length === 0) {
          void vscode.window.showInformationMessage(`backyard: no variables in the kernel of ${t.label} yet.`);
          return;
        }
        await vscode.window.showQuickPick(quickPickItems(res.variables), { title: `backyard: variables of ${t.label}`, matchOnDetail: true });
      }),
    ),
    reg(
      EditorCmd.saveFiles,
      guard(async (api) => {
        const t = await target();
        if (!t) return;
        const res = await api.execute<FilesResult>(Cmd.files, { uri: t.uri });
        if (res.write === 'workspace') {
          void vscode.window.showInformationMessage(`backyard: the kernel of ${t.label} writes the workspace's files directly (backyard.files.write is "workspace"): nothing to save.`);
          return;
        }
        if (res.files.length === 0) {
          void vscode.window.showInformationMessage(`backyard: the kernel of ${t.label} has no files that differ from the workspace.`);
          return;
        }
        const dir = t.uri.startsWith('file:') ? dirname(vscode.Uri.parse(t.uri).fsPath) : undefined;
        const picked = await vscode.window.showQuickPick<FileItem>(fileItems(res.files, dir), {
          title: `backyard: save files the kernel of ${t.label} wrote`,
          placeHolder: 'The chosen files are written to the workspace (a deleted one is removed there).',
          canPickMany: true,
        });
        if (!picked || picked.length === 0) return;
        const saved = await api.execute<SaveFilesResult>(Cmd.saveFiles, { uri: t.uri, paths: picked.map((p) => p.path) });
        void vscode.window.showInformationMessage(`backyard: saved ${saved.saved.length} file${saved.saved.length === 1 ? '' : 's'} to the workspace.`);
      }),
    ),
    reg(EditorCmd.refreshVariables, () => deps.refreshVariables()),
    reg(EditorCmd.clearResults, async () => {
      const t = await deps.target();
      if (t) deps.clearResults(t.uri);
    }),
    reg(EditorCmd.showOutput, () => deps.showOutput()),
    reg(EditorCmd.showDisplays, async (executionId?: unknown) => {
      const id = typeof executionId === 'string' ? executionId : undefined;
      if (!(await deps.showDisplays(id, vscode.window.activeTextEditor))) {
        void vscode.window.showInformationMessage('backyard: this cell showed no HTML, Markdown, image or JSON output.');
      }
    }),
  ];
}
