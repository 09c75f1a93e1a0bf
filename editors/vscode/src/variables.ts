// The kernel's namespace as a TreeView (Explorer › Backyard Variables) and a
// quick pick, both fed by backyard.variables for the active document.

import * as vscode from 'vscode';
import type { ServerApi } from './client';
import { Cmd, type Variable, type VariablesResult } from './protocol';

export interface Target {
  uri: string;
  /** A person's name for it: "sales.py", "report.ipynb". */
  label: string;
  notebook?: vscode.NotebookDocument;
}

export function variableItem(v: Variable): vscode.TreeItem {
  const item = new vscode.TreeItem(v.name, vscode.TreeItemCollapsibleState.None);
  item.description = `${v.type} = ${v.repr}`;
  item.tooltip = `${v.name}: ${v.type}\n${v.repr}`;
  return item;
}

export function quickPickItems(vars: readonly Variable[]): vscode.QuickPickItem[] {
  return vars.map((v) => ({ label: v.name, description: v.type, detail: v.repr }));
}

export class VariablesView implements vscode.TreeDataProvider<Variable>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<Variable>;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly api: ServerApi,
    private readonly target: () => Promise<Target | undefined>,
  ) {
    this.view = vscode.window.createTreeView('backyardVariables', { treeDataProvider: this });
  }

  /** Asks the view to reload; VS Code only calls getChildren when it is visible. */
  refresh(delayMs = 0): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.changed.fire();
    }, delayMs);
  }

  getTreeItem(v: Variable): vscode.TreeItem {
    return variableItem(v);
  }

  async getChildren(parent?: Variable): Promise<Variable[]> {
    if (parent) return [];
    const t = await this.target();
    if (!t) {
      this.view.message = 'Open a Python file or a notebook on the backyard kernel.';
      return [];
    }
    try {
      const res = await this.api.execute<VariablesResult>(Cmd.variables, { uri: t.uri });
      this.view.message = res.variables.length === 0 ? `No variables in the kernel of ${t.label} yet.` : undefined;
      return res.variables;
    } catch (err) {
      this.view.message = `backyard: ${err instanceof Error ? err.message : String(err)}`;
      return [];
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.view.dispose();
    this.changed.dispose();
  }
}
