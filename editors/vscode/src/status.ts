// The status bar item: the active document's kernel backend and state, from
// backyard/kernelState and backyard.kernelInfo. Clicking it picks the backend.

import * as vscode from 'vscode';
import { backendLabel, type KernelInfo, type KernelState, type KernelStateParams } from './protocol';

export interface KernelView {
  backend: string;
  runtime: string;
  state: KernelState;
  executionCount?: number;
  notes?: string[];
  /** Where cells' writes go (files.write), once kernelInfo said. */
  write?: string;
}

const icons: Record<KernelState, string> = {
  starting: '$(loading~spin)',
  idle: '$(circle-outline)',
  busy: '$(sync~spin)',
  dead: '$(error)',
};

/** Text and tooltip of the item. Pure. */
export function statusText(k: KernelView | undefined, docName: string): { text: string; tooltip: string } {
  if (!k) return { text: '$(beaker) backyard', tooltip: `backyard: no kernel yet for ${docName} (one starts with the first run). Click to pick the backend.` };
  const label = backendLabel(k.backend, k.runtime);
  const lines = [`backyard kernel of ${docName}: ${label}, ${k.state}`];
  if (k.executionCount !== undefined) lines.push(`${k.executionCount} executions since the last restart`);
  if (k.notes) lines.push(...k.notes);
  if (k.write === 'workspace') lines.push('Files: cells write the workspace\'s real files (backyard.files.write is "workspace").');
  else if (k.write) lines.push('Files: what cells write stays in the kernel; "backyard: Save Kernel Files…" writes chosen ones to the workspace.');
  lines.push('Click to pick the backend.');
  const writes = k.write === 'workspace' ? ' · writes files' : '';
  return { text: `${icons[k.state] ?? ''} ${label} · ${k.state}${writes}`.trim(), tooltip: lines.join('\n') };
}

export const pickBackendCommand = 'backyard.editor.pickBackend';

export class KernelStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('backyard.kernel', vscode.StatusBarAlignment.Right, 100);
  private readonly kernels = new Map<string, KernelView>();
  private active?: { uri: string; name: string };

  constructor() {
    this.item.name = 'backyard kernel';
    this.item.command = pickBackendCommand;
  }

  /** The document whose kernel is shown; undefined hides the item. */
  setActive(uri: string | undefined, name = ''): void {
    this.active = uri ? { uri, name } : undefined;
    this.update();
  }

  onKernelState(p: KernelStateParams): void {
    const prev = this.kernels.get(p.uri);
    this.kernels.set(p.uri, { ...prev, backend: p.backend, runtime: p.runtime, state: p.state });
    if (p.uri === this.active?.uri) this.update();
  }

  onKernelInfo(uri: string, info: KernelInfo): void {
    const v: KernelView = { backend: info.backend, runtime: info.runtime, state: info.state, executionCount: info.executionCount };
    if (info.notes) v.notes = info.notes;
    if (info.write) v.write = info.write;
    this.kernels.set(uri, v);
    if (uri === this.active?.uri) this.update();
  }

  /** The document closed: the server closed its kernel. */
  forget(uri: string): void {
    this.kernels.delete(uri);
    if (uri === this.active?.uri) this.update();
  }

  private update(): void {
    if (!this.active) {
      this.item.hide();
      return;
    }
    const { text, tooltip } = statusText(this.kernels.get(this.active.uri), this.active.name);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
