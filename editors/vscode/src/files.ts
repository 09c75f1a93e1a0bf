// The files a kernel wrote and kept apart from the workspace (its overlay):
// backyard.files lists them, a quick pick chooses, backyard.saveFiles
// writes the chosen ones to the workspace.

import type * as vscode from 'vscode';
import type { FileEntry } from './protocol';
import { fileMark, relativePath } from './render';

export interface FileItem extends vscode.QuickPickItem {
  path: string;
}

/** Quick pick items of an overlay, paths relative to dir, all picked. */
export function fileItems(entries: readonly FileEntry[], dir?: string): FileItem[] {
  return entries.map((e) => ({
    label: `${fileMark(e.state)} ${relativePath(dir, e.path)}`,
    description: e.state === 'deleted' ? 'deleted: saving removes it' : `${e.state} · ${formatSize(e.size)}`,
    picked: true,
    path: e.path,
  }));
}

/** "812 B", "3.4 KiB", "2.0 MiB". */
export function formatSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1 << 20) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1 << 20)).toFixed(1)} MiB`;
}
