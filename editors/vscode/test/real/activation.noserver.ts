// VS Code started with backyard.serverPath naming no binary: the extension
// says so, offers the README and the setting, and its commands still answer.

import * as assert from 'node:assert/strict';
import { before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { activated, bridge, fileUri, lenses, openEditor, waitFor, workspaceDir } from './helpers';

/** The notifications, read in the notification center (the smoke-test driver shows no toasts). */
async function notifications(): Promise<string[]> {
  await vscode.commands.executeCommand('notifications.showList');
  return bridge<string[]>('texts', { selector: '.notifications-center .notification-list-item' });
}

describe('without a server', () => {
  before(async () => {
    await openEditor('lens.py');
    await activated();
  });

  it('says that backyard.serverPath names no executable, with buttons to the README and the setting', async () => {
    const missing = `${workspaceDir()}/missing/backyard-ls`;
    const t = await waitFor('the error notification', async () => (await notifications()).find((x) => x.includes('backyard.serverPath')));
    assert.ok(t.replace(/\s+/g, ' ').includes(`backyard: backyard.serverPath is set to ${missing}, which is not an executable file.`), t);
    assert.match(t, /Open README/);
    assert.match(t, /Open Settings/);
  });

  it('Open Settings opens the settings editor on backyard.serverPath', async () => {
    await notifications();
    await bridge('click', { selector: '.notifications-center .notification-list-item .monaco-button', text: 'Open Settings' });
    await waitFor('the settings editor', () => vscode.window.tabGroups.activeTabGroup.activeTab?.label === 'Settings');
    const search = await waitFor('the settings search', async () => (await bridge<string[]>('texts', { selector: '.settings-editor .suggest-input-container .view-line' }))[0]?.trim());
    assert.equal(search, 'backyard.serverPath');
  });

  it('registers the editor commands, which tell what is missing instead of failing', async () => {
    const cmds = await vscode.commands.getCommands(true);
    assert.ok(cmds.includes('backyard.editor.runCell'));
    await openEditor('lens.py');
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('backyard.editor.runCell');
    await waitFor('a notification about the server', async () => (await notifications()).some((x) => x.includes('backyard.serverPath is set to')));
    // No server, so no lens provider: there are no lenses now, nor later.
    assert.deepEqual(await lenses(fileUri('lens.py')), []);
  });
});
