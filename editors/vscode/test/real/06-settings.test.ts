// Settings changed while VS Code runs: the extension's own (inline results)
// take effect at once; the server's (limits) reach it and apply to the next
// kernel.

import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { activated, afterTexts, fileUri, inlineResult, openEditor, server, setSetting, statusLens, waitFor } from './helpers';

describe('settings changed at run time', () => {
  const uri = () => fileUri('settings.py');
  const hints = async () =>
    ((await vscode.commands.executeCommand<vscode.InlayHint[]>('vscode.executeInlayHintProvider', uri(), new vscode.Range(0, 0, 6, 0))) ?? []).map((h) =>
      typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join(''),
    );

  before(async () => {
    await openEditor('settings.py');
    await activated();
    await server('backyard.runCell', { uri: uri().toString(), line: 0, wait: true });
    await inlineResult(/^\[1\] ✓ 42$/);
  });

  after(async () => {
    await setSetting('inlineResults', undefined);
    await setSetting('timeout', undefined);
  });

  it('backyard.inlineResults: off removes the inline results, decorations brings them back', async () => {
    await setSetting('inlineResults', 'off');
    await waitFor('no inline result', async () => (await afterTexts()).length === 0);
    await setSetting('inlineResults', 'decorations');
    await inlineResult(/^\[1\] ✓ 42$/);
  });

  it('backyard.inlineResults: inlayHints shows the server’s hints instead', async () => {
    assert.deepEqual(await hints(), [], 'inlay hints while decorations are on');
    await setSetting('inlineResults', 'inlayHints');
    await waitFor('no decoration', async () => (await afterTexts()).length === 0);
    const h = await waitFor('the server’s inlay hint', async () => {
      const x = await hints();
      return x.length > 0 ? x : undefined;
    });
    assert.match(h.join(' '), /42/);
    await setSetting('inlineResults', 'decorations');
    await inlineResult(/^\[1\] ✓ 42$/);
  });

  it('backyard.timeout reaches the server and limits the next kernel', async () => {
    await setSetting('timeout', 0.5);
    // Picking the backend again closes the kernel; the next run starts one with the new limits.
    await server('backyard.setBackend', { uri: uri().toString(), backend: 'monty' });
    const res = await server<{ executions: { status: string; durationMs: number }[] }>('backyard.runCell', { uri: uri().toString(), line: 3, wait: true });
    assert.equal(res.executions[0]?.status, 'timeout');
    assert.ok(res.executions[0]!.durationMs < 10_000, `ran ${res.executions[0]!.durationMs} ms: the default limit, not 0.5 s`);
    await statusLens(uri(), 3, /^\[\d\] ⏱ timed out$/);
    await inlineResult(/⏱ /);
  });
});
