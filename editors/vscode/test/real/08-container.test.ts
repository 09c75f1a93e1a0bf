// A file with cells on the container backend, picked from the status bar
// item's quick pick as a person would.

import * as assert from 'node:assert/strict';
import { before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { activated, bridge, fileUri, inlineResult, kernelItem, kernelStatusIs, openEditor, quickPickRows, statusLens, waitFor } from './helpers';

describe('a file on the container backend', () => {
  const uri = () => fileUri('container.py');

  before(async () => {
    await openEditor('container.py');
    await activated();
  });

  it('is picked from the status bar item', async () => {
    // No kernel yet ("backyard"), or the auto backend's first one, Monty, which backyard.kernelInfo
    // starts when the editor becomes active while the server runs.
    await kernelStatusIs('no kernel, or Monty', (t) => t === 'backyard' || t === 'monty · idle');
    await bridge('click', { selector: kernelItem });
    await waitFor('the backend quick pick', async () => (await quickPickRows()).length >= 3);
    await bridge('type', { text: 'container' });
    await bridge('press', { keys: 'Enter' });
    await kernelStatusIs('the container backend', (t) => t.startsWith('container'));
  });

  it('runs its cells in the container, in gVisor', async () => {
    await vscode.commands.executeCommand('backyard.editor.runAll');
    const first = await statusLens(uri(), 0, /^\[1\] /, 120_000);
    assert.match(first, /^\[1\] ✓ .* · container\/runsc$/);
    await statusLens(uri(), 4, /^\[2\] ✓ .* · container\/runsc$/, 60_000);
    await inlineResult(/^\[1\] ✓ \(3, \d+\)$/);
    await inlineResult(/^\[2\] ✓ array\(\[3, 5, 7\]\)$/);
    await kernelStatusIs('“container · runsc · idle” in the status bar', (t) => t === 'container · runsc · idle');
  });
});
