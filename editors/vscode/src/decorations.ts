// Inline results in text editors: one decoration type per look (colour),
// after-text on the last line of the code that ran, the full output in the
// decoration's hover. The state lives in results.ts; this module draws it.

import { dirname } from 'node:path';
import * as vscode from 'vscode';
import type { DisplayParams, ExecutionStateParams, OutputParams } from './protocol';
import { hoverMarkdown, inline, looks, showDisplaysCommand, type Look } from './render';
import { DocumentResults, type ResultEntry } from './results';

export interface Spec {
  line: number;
  text: string;
  hover: string;
}

/** What each decoration type shows in a document of lineCount lines in folder dir. Pure, for the tests. */
export function specsByLook(entries: readonly ResultEntry[], lineCount: number, dir?: string): Map<Look, Spec[]> {
  const out = new Map<Look, Spec[]>(looks.map((l) => [l, []]));
  for (const e of entries) {
    if (e.lastLine >= lineCount) continue; // its lines were deleted
    const { look, text } = inline(e, dir);
    out.get(look)!.push({ line: e.lastLine, text, hover: hoverMarkdown(e, dir) });
  }
  return out;
}

/** Decoration type options of a look: after-text in the look's theme colour. */
export function decorationStyle(look: Look): vscode.DecorationRenderOptions {
  return {
    after: {
      color: new vscode.ThemeColor(`backyard.result.${look}`),
      margin: '0 0 0 2em',
      fontStyle: look === 'stale' || look === 'running' ? 'italic' : 'normal',
    },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  };
}

export class InlineResults implements vscode.Disposable {
  private readonly types = new Map<Look, vscode.TextEditorDecorationType>();
  private readonly docs = new Map<string, DocumentResults>();
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly disposables: vscode.Disposable[] = [];

  /** enabled() is read on each draw, so a settings change takes effect on the next one. */
  constructor(private readonly enabled: () => boolean) {
    for (const look of looks) this.types.set(look, vscode.window.createTextEditorDecorationType(decorationStyle(look)));
    this.disposables.push(
      vscode.window.onDidChangeVisibleTextEditors((eds) => eds.forEach((ed) => this.drawEditor(ed))),
      vscode.workspace.onDidChangeTextDocument((ev) => this.onTextChange(ev)),
      vscode.workspace.onDidCloseTextDocument((doc) => this.forget(doc.uri.toString())),
    );
  }

  results(uri: string): DocumentResults {
    let r = this.docs.get(uri);
    if (!r) {
      r = new DocumentResults();
      this.docs.set(uri, r);
    }
    return r;
  }

  onExecutionState(p: ExecutionStateParams): void {
    if (this.results(p.uri).onExecutionState(p)) this.draw(p.uri);
  }

  onOutput(p: OutputParams): void {
    // Streaming can be chatty: redraw at most every 100 ms per document.
    if (this.results(p.uri).onOutput(p.executionId, p.text, p.stream, p.idle)) this.draw(p.uri, 100);
  }

  /** backyard/display updating an earlier run's display (update_display in a later cell): its record takes the data. */
  onDisplay(p: DisplayParams): void {
    if (p.update && p.display && this.results(p.uri).onDisplayUpdate(p.executionId, p.display)) this.draw(p.uri);
  }

  /** After a restart the namespace is gone: earlier results describe nothing now. */
  markStale(uri: string): void {
    if (this.docs.get(uri)?.markAllStale()) this.draw(uri);
  }

  /** The finished run executionId of any document, or the one shown at line of uri. */
  find(executionId: string | undefined, uri?: string, line?: number): { uri: string; entry: ResultEntry } | undefined {
    if (executionId) {
      for (const [u, r] of this.docs) {
        const entry = r.get(executionId);
        if (entry) return { uri: u, entry };
      }
      return undefined;
    }
    if (uri === undefined || line === undefined) return undefined;
    const entry = this.docs.get(uri)?.all().find((e) => e.phase === 'done' && e.startLine <= line && line <= e.lastLine);
    return entry && { uri, entry };
  }

  clear(uri: string): void {
    this.docs.get(uri)?.clear();
    this.draw(uri);
  }

  redrawAll(): void {
    for (const ed of vscode.window.visibleTextEditors) this.drawEditor(ed);
  }

  private onTextChange(ev: vscode.TextDocumentChangeEvent): void {
    const uri = ev.document.uri.toString();
    const r = this.docs.get(uri);
    if (!r) return;
    let changed = false;
    for (const c of ev.contentChanges) {
      changed = r.onTextChange({ range: { start: c.range.start, end: c.range.end }, text: c.text }) || changed;
    }
    // Redraw now: VS Code moved the old decorations on its own, but the after-text may have to change.
    if (changed) this.draw(uri);
  }

  private forget(uri: string): void {
    this.docs.delete(uri);
    const t = this.pending.get(uri);
    if (t) clearTimeout(t);
    this.pending.delete(uri);
  }

  private draw(uri: string, delayMs = 0): void {
    if (delayMs > 0) {
      if (this.pending.has(uri)) return;
      this.pending.set(
        uri,
        setTimeout(() => {
          this.pending.delete(uri);
          this.draw(uri);
        }, delayMs),
      );
      return;
    }
    for (const ed of vscode.window.visibleTextEditors) {
      if (ed.document.uri.toString() === uri) this.drawEditor(ed);
    }
  }

  private drawEditor(ed: vscode.TextEditor): void {
    const r = this.docs.get(ed.document.uri.toString());
    const entries = r && this.enabled() ? r.all() : [];
    const uri = ed.document.uri;
    const specs = specsByLook(entries, ed.document.lineCount, uri.scheme === 'file' ? dirname(uri.fsPath) : undefined);
    for (const [look, list] of specs) {
      const options = list.map((s): vscode.DecorationOptions => {
        const hover = new vscode.MarkdownString(s.hover);
        // Its one link opens the displays view; no other command runs from it.
        hover.isTrusted = { enabledCommands: [showDisplaysCommand] };
        return {
          range: ed.document.lineAt(s.line).range,
          hoverMessage: hover,
          renderOptions: { after: { contentText: s.text } },
        };
      });
      ed.setDecorations(this.types.get(look)!, options);
    }
  }

  dispose(): void {
    for (const t of this.pending.values()) clearTimeout(t);
    this.types.forEach((t) => t.dispose());
    this.disposables.forEach((d) => d.dispose());
  }
}

