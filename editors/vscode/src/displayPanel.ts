// The displays view: a webview beside the editor that renders the rich
// outputs (HTML, Markdown, SVG, images, JSON) of a .py cell's run, which the
// inline result can only name. A run with such outputs shows there as it
// ends; "backyard: Show Displays" brings back those of the cell at the cursor.

import * as vscode from 'vscode';
import { displaysPage, mainMime, richOutputs } from './displays';
import type { Execution } from './protocol';

export class DisplayPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private shown = 0;

  /** Renders x's rich outputs under title ("hover.py:12 · [3]"); false when it has none. */
  async show(x: Execution, title: string): Promise<boolean> {
    const outputs = richOutputs(x);
    if (outputs.length === 0) return false;
    const turn = ++this.shown;
    // Markdown renders through VS Code's own Markdown extension, as its preview does.
    const markdown = await Promise.all(
      outputs.map(async (o) => {
        if (mainMime(o.data) !== 'text/markdown') return undefined;
        return vscode.commands.executeCommand<string>('markdown.api.render', o.data['text/markdown']).then(
          (html) => (typeof html === 'string' ? html : undefined),
          () => undefined,
        );
      }),
    );
    if (turn !== this.shown) return true; // a later run is shown instead
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        'backyard.displays',
        'backyard: displays',
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: false, enableCommandUris: false, localResourceRoots: [] },
      );
      this.panel.onDidDispose(() => (this.panel = undefined));
    } else {
      this.panel.reveal(undefined, true);
    }
    this.panel.title = `backyard: ${title}`;
    this.panel.webview.html = displaysPage(title, outputs, markdown);
    return true;
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
