// What the real-VS-Code tests share: the bridge to the driver (Playwright on
// the workbench page, for what the API cannot see), waiting for a condition,
// opening the workspace's files, and reading the server's code lenses.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import * as vscode from 'vscode';

export const extensionId = 'backyard-ls.backyard-ls';

export function workspaceDir(): string {
  const f = vscode.workspace.workspaceFolders?.[0];
  assert.ok(f, 'the workbench opened no folder');
  return f.uri.fsPath;
}

interface BridgeConfig {
  port: number;
  token: string;
  /** The ending of this session's test files. */
  files: string;
  grep?: string;
}

/** The driver writes bridge.json next to the workspace folder. */
export function bridgeConfig(): BridgeConfig {
  return JSON.parse(fs.readFileSync(path.join(workspaceDir(), '..', 'bridge.json'), 'utf8')) as BridgeConfig;
}

/** Asks the driver to do op on the page (press keys, read the DOM); see ops in scripts/run-vscode-real.mjs. */
export function bridge<T = unknown>(op: string, args: object = {}): Promise<T> {
  const { port, token } = bridgeConfig();
  const body = JSON.stringify({ op, args });
  return new Promise<T>((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (res) => {
        let data = '';
        res.on('data', (c) => (data += c));
        res.on('end', () => {
          const r = JSON.parse(data) as { value?: T; error?: string };
          if (res.statusCode === 200) resolve(r.value as T);
          else reject(new Error(`bridge ${op}: ${r.error ?? res.statusCode}`));
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls fn until it returns something truthy; fails with what and the last value seen. */
export async function waitFor<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 30_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastErr: unknown;
  for (;;) {
    try {
      last = await fn();
      if (last) return last as NonNullable<T>;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) {
      const seen = lastErr instanceof Error ? lastErr.message : JSON.stringify(last);
      throw new Error(`timed out waiting for ${what} (last: ${seen})`);
    }
    await sleep(150);
  }
}

export function fileUri(name: string): vscode.Uri {
  return vscode.Uri.file(path.join(workspaceDir(), name));
}

/** Opens a workspace file in the active editor, focused. */
export async function openEditor(name: string): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(fileUri(name));
  return vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.One });
}

/** The extension, activated, with its client started (activate() waits for it). */
export async function activated(): Promise<void> {
  const ext = vscode.extensions.getExtension(extensionId);
  assert.ok(ext, `${extensionId} is not loaded`);
  await ext.activate();
}

export interface Lens {
  line: number;
  title: string;
  command: string;
  args: unknown[];
}

export async function lenses(uri: vscode.Uri): Promise<Lens[]> {
  const ls = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100)) ?? [];
  return ls.map((l) => ({ line: l.range.start.line, title: l.command?.title ?? '', command: l.command?.command ?? '', args: l.command?.arguments ?? [] }));
}

/** The status lens of the cell whose header is line, once its title matches re. */
export function statusLens(uri: vscode.Uri, line: number, re: RegExp, timeoutMs?: number): Promise<string> {
  return waitFor(
    `a status lens on line ${line + 1} matching ${re}`,
    async () => (await lenses(uri)).find((l) => l.line === line && l.command === '' && re.test(l.title))?.title,
    timeoutMs,
  );
}

/** The ::after texts the page shows in the text editors. */
export function afterTexts(): Promise<{ text: string; className: string; line: string }[]> {
  return bridge('afterTexts');
}

/** Waits until an inline result matching re is rendered. */
export function inlineResult(re: RegExp, timeoutMs?: number): Promise<{ text: string; className: string; line: string }> {
  return waitFor(`an inline result matching ${re} in the editor`, async () => (await afterTexts()).find((a) => re.test(a.text)), timeoutMs);
}

/** Sets a backyard setting in the workspace and waits for the extension host to see it. */
export async function setSetting(key: string, value: unknown): Promise<void> {
  const cfg = vscode.workspace.getConfiguration('backyard');
  await cfg.update(key, value, vscode.ConfigurationTarget.Workspace);
  await waitFor(`backyard.${key} = ${JSON.stringify(value)}`, () => JSON.stringify(vscode.workspace.getConfiguration('backyard').get(key)) === JSON.stringify(value ?? cfg.inspect(key)?.defaultValue));
}

/** Calls a server command through the language client (the commands the lenses carry). */
export function server<T>(command: string, arg: object): Promise<T> {
  return vscode.commands.executeCommand<T>(command, arg) as Promise<T>;
}

/** The selector of the extension's status bar item (VS Code gives it the id extension.item). */
export const kernelItem = `[id="${extensionId}.backyard.kernel"]`;

/** The text of the extension's status bar item, or '' when it is hidden. */
export async function kernelStatus(): Promise<string> {
  return ((await bridge<string[]>('texts', { selector: kernelItem }))[0] ?? '').trim();
}

/** Waits until the status bar item's text passes ok; fails with the last text seen. */
export async function kernelStatusIs(what: string, ok: (text: string) => boolean, timeoutMs?: number): Promise<string> {
  let last = '';
  try {
    await waitFor(what, async () => ok((last = await kernelStatus())), timeoutMs);
    return last;
  } catch {
    throw new Error(`timed out waiting for ${what} in the status bar item (last: "${last}")`);
  }
}

/** The aria-labels of the actions in the active editor's title bar (with the run menu's primary action). */
export function editorTitleActions(): Promise<string[]> {
  return bridge<string[]>('attrs', { selector: '.editor-actions .action-label', name: 'aria-label' });
}

/** The aria-labels of the visible rows of the quick pick ("name, description, detail"). */
export function quickPickRows(): Promise<string[]> {
  return bridge<string[]>('attrs', { selector: '.quick-input-widget .monaco-list-row', name: 'aria-label' });
}

export async function closeAll(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}
