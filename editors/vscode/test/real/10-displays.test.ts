// A .py cell's rich outputs: the inline result names their MIME types and
// the displays view (a webview beside the editor) renders them: an HTML
// table from IPython.display.HTML and a matplotlib plot (PNG), both from
// cells that move the file's kernel to the container (auto backend).

import * as assert from 'node:assert/strict';
import { before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { activated, bridge, fileUri, inlineResult, openEditor, statusLens, waitFor } from './helpers';

interface View {
  title: string;
  outputs: { mime: string; text: string; cells: string[]; images: { width: number; height: number }[] }[];
}

const view = (): Promise<View | null> => bridge<View | null>('displaysView');

describe('rich outputs of a .py cell', () => {
  const uri = () => fileUri('displays.py');
  let ed: vscode.TextEditor;

  before(async () => {
    ed = await openEditor('displays.py');
    await activated();
  });

  it('an HTML table: named inline, rendered as a table in the displays view', async () => {
    ed.selection = new vscode.Selection(2, 0, 2, 0);
    await vscode.commands.executeCommand('backyard.editor.runCell');
    await statusLens(uri(), 0, /^\[\d+\] ✓ .* · container\//, 120_000);
    const r = await inlineResult(/✓ <IPython\.core\.display\.HTML object> · \[text\/html\]$/);
    assert.match(r.line, /^HTML\(/);
    const v = await waitFor('the table in the displays view', async () => {
      const x = await view();
      return x?.outputs.some((o) => o.cells.includes('Bergen')) ? x : undefined;
    });
    assert.match(v.title, /^displays\.py:2 · \[\d+\]$/);
    assert.equal(v.outputs.length, 1);
    assert.equal(v.outputs[0]!.mime, 'text/html');
    assert.deepEqual(v.outputs[0]!.cells, ['city', 'people', 'Oslo', '709000', 'Bergen', '291000']);
  });

  it('a matplotlib plot: named inline, drawn as an image in the displays view', async () => {
    ed.selection = new vscode.Selection(7, 0, 7, 0);
    await vscode.commands.executeCommand('backyard.editor.runCell');
    await statusLens(uri(), 4, /^\[\d+\] ✓ .* · container\//, 120_000);
    await inlineResult(/✓ \[image\/png\]$/);
    const v = await waitFor('a drawn PNG in the displays view', async () => {
      const x = await view();
      return x?.outputs.some((o) => o.mime === 'image/png' && o.images.length === 1) ? x : undefined;
    });
    assert.match(v.title, /^displays\.py:6 · \[\d+\]$/);
    const img = v.outputs[0]!.images[0]!;
    // Matplotlib's default figure (640×480 at 100 dpi), cut to its drawing.
    assert.ok(img.width > 300 && img.height > 200, `image ${img.width}×${img.height}`);
  });

  it('Show Displays brings back those of the cell at the cursor', async () => {
    await openEditor('displays.py');
    ed = vscode.window.activeTextEditor!;
    ed.selection = new vscode.Selection(1, 0, 1, 0);
    await vscode.commands.executeCommand('backyard.editor.showDisplays');
    await waitFor('the table again', async () => (await view())?.outputs.some((o) => o.cells.includes('Oslo')));
  });
});
