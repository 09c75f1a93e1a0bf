// Entry point: finds the binaries, starts the language client and connects
// the server's notifications to the inline results, the log, the status bar,
// the variables view and the notebook controller.

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  State,
  type LanguageClient,
} from 'vscode-languageclient/node';
import { hasMarkers } from './cells';
import { config, createClient, serverApi, type ServerApi } from './client';
import { documentLines, registerCommands } from './commands';
import { InlineResults } from './decorations';
import { DisplayPanel } from './displayPanel';
import { isKernelUri, kernelUri, NotebookKernels, type DocSync } from './notebook';
import { OutputLog, whereLabel } from './output';
import { describeTried, findMonty, findServer } from './paths';
import { askInput } from './input';
import { Cmd, Notify, Request, type DisplayParams, type ExecutionStateParams, type KernelInfo, type KernelStateParams, type OutputParams } from './protocol';
import { inlineResults } from './settings';
import { KernelStatus } from './status';
import { VariablesView, type Target } from './variables';

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('backyard', { log: true });
  const status = new KernelStatus();
  const inline = new InlineResults(() => inlineResults(config) === 'decorations');
  const displays = new DisplayPanel();
  context.subscriptions.push(log, status, inline, displays);
  void vscode.commands.executeCommand('setContext', 'backyard.active', true);

  // vsce stores the README as readme.md in the .vsix; a checkout has README.md.
  const readme = vscode.Uri.joinPath(context.extensionUri, fs.existsSync(path.join(context.extensionPath, 'readme.md')) ? 'readme.md' : 'README.md');
  const help = async (msg: string, setting: string, error: boolean): Promise<void> => {
    const show = error ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
    const pick = await show(msg, 'Open README', 'Open Settings');
    if (pick === 'Open README') await vscode.commands.executeCommand('markdown.showPreview', readme);
    if (pick === 'Open Settings') await vscode.commands.executeCommand('workbench.action.openSettings', setting);
  };

  const server = findServer(config('serverPath', ''), context.extensionPath);
  const serverMissing = server.path
    ? undefined
    : server.badExplicit
      ? `backyard: backyard.serverPath is set to ${server.badExplicit.path}, which is not an executable file.`
      : `backyard: the backyard-ls server was not found (looked in ${describeTried(server)}). Install it or set backyard.serverPath.`;
  if (serverMissing) {
    log.error(serverMissing);
    void help(serverMissing, 'backyard.serverPath', true);
  } else {
    log.info(`server: ${server.path}`);
    const monty = findMonty(config('montyPath', ''), server.path);
    if (monty.path) {
      log.info(`Monty worker: ${monty.path}`);
    } else {
      const msg = monty.badExplicit
        ? `backyard: ${monty.badExplicit.source} names ${monty.badExplicit.path}, which is not an executable file; Monty kernels cannot start.`
        : `backyard: the Monty worker was not found (looked in ${describeTried(monty)}); Monty kernels cannot start. Install it or set backyard.montyPath.`;
      log.warn(msg);
      void help(msg, 'backyard.montyPath', false);
    }
  }

  let api: ServerApi | undefined;
  let notebooks: NotebookKernels | undefined;
  if (server.path) {
    const c = createClient(server.path, { isVirtual: isKernelUri });
    client = c;
    api = serverApi(c);
    const sync: DocSync = {
      open: (uri, text, version) => c.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'python', version, text } }),
      change: (uri, text, version) => c.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges: [{ text }] }),
      close: (uri) => c.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } }),
    };
    notebooks = new NotebookKernels(api, sync, (uri, info) => status.onKernelInfo(uri, info));
    context.subscriptions.push(notebooks);
  }

  // Where each execution runs, for the log: "sales.py:12" or "report.ipynb [cell 3]".
  const where = new Map<string, string>();
  const out = new OutputLog(log);
  const labelOf = (uri: string, line: number): string => (isKernelUri(uri) ? notebooks?.runningLabel(uri) : undefined) ?? whereLabel(uri, line);

  const target = (): Target | undefined => {
    const ed = vscode.window.activeTextEditor;
    if (ed && ed.document.languageId === 'python' && (ed.document.uri.scheme === 'file' || ed.document.uri.scheme === 'untitled')) {
      return { uri: ed.document.uri.toString(), label: path.basename(ed.document.uri.path) };
    }
    const nb = vscode.window.activeNotebookEditor?.notebook;
    if (nb && notebooks?.isSelected(nb)) return { uri: kernelUri(nb.uri), label: path.basename(nb.uri.path), notebook: nb };
    return undefined;
  };
  const openTarget = async (): Promise<Target | undefined> => {
    const t = target();
    if (t?.notebook && notebooks) await notebooks.ensureOpen(t.notebook);
    return t;
  };

  const variables = api ? new VariablesView(api, openTarget) : undefined;
  if (variables) context.subscriptions.push(variables);

  const onExecutionState = (p: ExecutionStateParams): void => {
    if (!isKernelUri(p.uri)) inline.onExecutionState(p);
    if (p.state === 'queued') where.set(p.executionId, labelOf(p.uri, p.range.start.line));
    if (p.state === 'running' && isKernelUri(p.uri)) where.set(p.executionId, labelOf(p.uri, p.range.start.line));
    if (p.state !== 'done') return;
    const label = where.get(p.executionId) ?? labelOf(p.uri, p.range.start.line);
    where.delete(p.executionId);
    if (p.execution) out.onDone(p.execution, label);
    else out.onDropped(p.executionId);
    // A .py cell's HTML, images… render beside it (a notebook renders its own).
    if (p.execution && !isKernelUri(p.uri)) void displays.show(p.execution, displayTitle(label, p.execution));
    if (p.uri === target()?.uri) variables?.refresh(200);
  };
  const onOutput = (p: OutputParams): void => {
    if (isKernelUri(p.uri)) notebooks?.onOutput(p);
    else inline.onOutput(p);
    out.onOutput(p, where.get(p.executionId) ?? labelOf(p.uri, 0));
  };

  // The status bar follows the active editor; its kernel's info is asked for once per switch.
  const refreshStatus = (): void => {
    const t = target();
    status.setActive(t?.uri, t?.label);
    if (!t || !api || client?.state !== State.Running) return;
    if (t.notebook && !notebooks?.isOpen(t.notebook)) return;
    api
      .execute<KernelInfo>(Cmd.kernelInfo, { uri: t.uri })
      .then((info) => status.onKernelInfo(t.uri, info))
      .catch(() => undefined); // not open on the server yet: kernelState will tell
  };
  const updateHasCells = (): void => {
    const ed = vscode.window.activeTextEditor;
    // Notebook cells are python editors too; their keys belong to the notebook.
    const has = !!ed && ed.document.languageId === 'python' && ed.document.uri.scheme !== 'vscode-notebook-cell' && hasMarkers(documentLines(ed.document));
    void vscode.commands.executeCommand('setContext', 'backyard.hasCells', has);
  };

  context.subscriptions.push(
    ...registerCommands({
      api: () => {
        if (!api) void help(serverMissing ?? 'backyard: the server is not running.', 'backyard.serverPath', true);
        return api;
      },
      target: openTarget,
      restartNotebook: async (nb) => notebooks?.restart(nb),
      interruptNotebook: async (nb) => notebooks?.interrupt(nb),
      onKernelInfo: (uri, info) => status.onKernelInfo(uri, info),
      onRestarted: (uri) => {
        inline.markStale(uri);
        variables?.refresh();
      },
      clearResults: (uri) => inline.clear(uri),
      refreshVariables: () => variables?.refresh(),
      showOutput: () => log.show(true),
      showDisplays: async (executionId, ed) => {
        const found = inline.find(executionId, ed?.document.uri.toString(), ed?.selection.active.line);
        const x = found?.entry.execution;
        return !!found && !!x && displays.show(x, displayTitle(whereLabel(found.uri, found.entry.startLine), x));
      },
    }),
    vscode.window.onDidChangeActiveTextEditor(() => {
      updateHasCells();
      refreshStatus();
      variables?.refresh(100);
    }),
    vscode.window.onDidChangeActiveNotebookEditor(() => {
      refreshStatus();
      variables?.refresh(100);
    }),
    // Picking the kernel happens after the notebook became active: only then is it a target.
    ...(notebooks
      ? [
          notebooks.controller.onDidChangeSelectedNotebooks(() => {
            refreshStatus();
            variables?.refresh(100);
          }),
        ]
      : []),
    vscode.workspace.onDidChangeTextDocument((ev) => {
      if (ev.document === vscode.window.activeTextEditor?.document) updateHasCells();
    }),
    vscode.workspace.onDidCloseTextDocument((doc) => status.forget(doc.uri.toString())),
    vscode.workspace.onDidChangeConfiguration((ev) => {
      if (ev.affectsConfiguration('backyard.inlineResults')) inline.redrawAll();
      if (ev.affectsConfiguration('backyard.serverPath')) {
        void vscode.window
          .showInformationMessage('backyard: the server path changed; reload the window to use it.', 'Reload Window')
          .then((pick) => pick && vscode.commands.executeCommand('workbench.action.reloadWindow'));
      }
    }),
  );
  updateHasCells();
  status.setActive(target()?.uri, target()?.label);

  if (!client) return;
  const c = client;
  c.onNotification(Notify.executionState, onExecutionState);
  c.onNotification(Notify.output, onOutput);
  c.onNotification(Notify.display, (p: DisplayParams) => (isKernelUri(p.uri) ? notebooks?.onDisplay(p) : inline.onDisplay(p)));
  c.onNotification(Notify.kernelState, (p: KernelStateParams) => status.onKernelState(p));
  c.onRequest(Request.input, askInput);
  c.onDidChangeState((e) => {
    // A (re)started server has no kernel documents and no kernels.
    if (e.newState === State.Running) {
      notebooks?.serverRestarted();
      refreshStatus();
    }
  });
  try {
    await c.start();
  } catch (err) {
    const msg = `backyard: the server ${server.path} did not start: ${err instanceof Error ? err.message : String(err)}`;
    log.error(msg);
    void help(msg, 'backyard.serverPath', true);
  }
}

/** "hover.py:12 · Out[3]": the run a displays view shows. */
function displayTitle(where: string, x: { executionCount: number }): string {
  return x.executionCount > 0 ? `${where} · [${x.executionCount}]` : where;
}

export function deactivate(): Thenable<void> | undefined {
  return client?.stop();
}
