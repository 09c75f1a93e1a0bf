import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { beforeEach, describe, it } from 'node:test';
import type * as vscode from 'vscode';
import type { ServerApi } from '../../src/client';
import { EditorCmd, registerCommands, selectionRange, type CommandDeps } from '../../src/commands';
import { Cmd, executeParams, lineArg, rangeArg, type KernelInfo } from '../../src/protocol';
import type { Target } from '../../src/variables';
import { mock, mockDocument, mockEditor, Position, Selection, window } from '../mock/vscode';

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));

interface Call {
  command: string;
  arg: Record<string, unknown>;
}

function setup(text: string, cursor: Position, answers: Record<string, unknown> = {}) {
  const calls: Call[] = [];
  const api: ServerApi = {
    async execute<T>(command: string, arg: object): Promise<T> {
      calls.push({ command, arg: arg as Record<string, unknown> });
      return (answers[command] ?? { queued: ['x'] }) as T;
    },
  };
  const doc = mockDocument(text);
  const ed = mockEditor(doc, cursor);
  window.activeTextEditor = ed;
  const infos: [string, KernelInfo][] = [];
  const restarted: string[] = [];
  const deps: CommandDeps = {
    api: () => api,
    target: async (): Promise<Target> => ({ uri: doc.uri.toString(), label: 'demo.py' }),
    restartNotebook: async () => undefined,
    interruptNotebook: async () => undefined,
    onKernelInfo: (uri, info) => infos.push([uri, info]),
    onRestarted: (uri) => restarted.push(uri),
    clearResults: () => {},
    refreshVariables: () => {},
    showOutput: () => {},
    showDisplays: async () => false,
  };
  registerCommands(deps);
  const run = (id: string) => mock.state.commands.get(id)!();
  return { calls, doc, ed, run, infos, restarted, uri: doc.uri.toString() };
}

describe('command arguments', () => {
  it('are one JSON object per command', () => {
    assert.deepEqual(executeParams(Cmd.runCell, lineArg('file:///a.py', 3)), { command: 'backyard.runCell', arguments: [{ uri: 'file:///a.py', line: 3 }] });
    const r = { start: { line: 1, character: 2 }, end: { line: 3, character: 0 } };
    assert.deepEqual(rangeArg('file:///a.py', r, false), { uri: 'file:///a.py', range: r, wait: false });
  });
  it('send the selection, or the whole cursor line when nothing is selected', () => {
    const doc = mockDocument('a = 1\n  b = 2\nc');
    const sel = new Selection(new Position(1, 2), new Position(0, 4));
    assert.deepEqual(selectionRange(sel as unknown as vscode.Selection, doc as unknown as vscode.TextDocument), { start: { line: 0, character: 4 }, end: { line: 1, character: 2 } });
    const empty = new Selection(new Position(1, 3), new Position(1, 3));
    assert.deepEqual(selectionRange(empty as unknown as vscode.Selection, doc as unknown as vscode.TextDocument), { start: { line: 1, character: 0 }, end: { line: 1, character: 7 } });
  });
});

describe('editor commands', () => {
  beforeEach(() => mock.reset());

  it('have their own IDs: none is a server command, and every contributed one is registered', () => {
    setup('x', new Position(0, 0));
    const registered = [...mock.state.commands.keys()].sort();
    const server = Object.values(Cmd) as string[];
    for (const id of registered) assert.ok(!server.includes(id), id);
    const contributed = manifest.contributes.commands.map((c: { command: string }) => c.command).sort();
    assert.deepEqual(registered, contributed);
    assert.deepEqual(registered, Object.values(EditorCmd).sort());
  });

  it('bind Ctrl+Enter to run the cell and Shift+Enter to run-and-advance or run the selection', () => {
    const keys = manifest.contributes.keybindings as { command: string; key: string; when: string }[];
    const by = (cmd: string) => keys.find((k) => k.command === cmd)!;
    assert.equal(by(EditorCmd.runCell).key, 'ctrl+enter');
    assert.equal(by(EditorCmd.runCellAndAdvance).key, 'shift+enter');
    assert.match(by(EditorCmd.runCellAndAdvance).when, /backyard\.hasCells && !editorHasSelection/);
    assert.equal(by(EditorCmd.runSelection).key, 'shift+enter');
    assert.match(by(EditorCmd.runSelection).when, /(?<!!)editorHasSelection/);
    // Inside a notebook, Shift+Enter and Ctrl+Enter stay the notebook's.
    for (const k of keys) assert.match(k.when, /!notebookEditorFocused/, k.command);
  });

  it('run the cell at the cursor without waiting for it', async () => {
    const t = setup('# %%\na = 1\n# %%\nb = 2', new Position(1, 3));
    await t.run(EditorCmd.runCell);
    await t.run(EditorCmd.runAbove);
    await t.run(EditorCmd.runBelow);
    await t.run(EditorCmd.runAll);
    assert.deepEqual(t.calls, [
      { command: Cmd.runCell, arg: { uri: t.uri, line: 1, wait: false } },
      { command: Cmd.runAbove, arg: { uri: t.uri, line: 1, wait: false } },
      { command: Cmd.runBelow, arg: { uri: t.uri, line: 1, wait: false } },
      { command: Cmd.runAll, arg: { uri: t.uri, wait: false } },
    ]);
  });

  it('run the selection as a range', async () => {
    const t = setup('a = 1\nb = 2\nc = 3', new Position(0, 0));
    t.ed.selection = new Selection(new Position(1, 0), new Position(2, 3));
    await t.run(EditorCmd.runSelection);
    assert.deepEqual(t.calls, [{ command: Cmd.runRange, arg: { uri: t.uri, range: { start: { line: 1, character: 0 }, end: { line: 2, character: 3 } }, wait: false } }]);
  });

  it('run and advance to the next cell', async () => {
    const t = setup('# %%\na = 1\n# %%\nb = 2\n', new Position(1, 0));
    await t.run(EditorCmd.runCellAndAdvance);
    assert.deepEqual(t.calls, [{ command: Cmd.runCell, arg: { uri: t.uri, line: 1, wait: false } }]);
    assert.deepEqual([t.ed.selection.active.line, t.ed.selection.active.character], [3, 0]);
    assert.equal(t.doc.text, '# %%\na = 1\n# %%\nb = 2\n');
  });

  it('run and advance from the last cell adds a "# %%" cell, like Jupyter', async () => {
    const t = setup('# %%\na = 1\n# %%\nb = 2', new Position(3, 2));
    await t.run(EditorCmd.runCellAndAdvance);
    assert.deepEqual(t.calls, [{ command: Cmd.runCell, arg: { uri: t.uri, line: 3, wait: false } }]);
    assert.equal(t.doc.text, '# %%\na = 1\n# %%\nb = 2\n\n# %%\n');
    assert.equal(t.ed.selection.active.line, 6);
  });

  it('interrupt, restart and switch the backend of the active document', async () => {
    const info: KernelInfo = { backend: 'container', runtime: 'runsc', state: 'idle', executionCount: 0 };
    const t = setup('x', new Position(0, 0), { [Cmd.restart]: info, [Cmd.setBackend]: info, [Cmd.kernelInfo]: { ...info, backend: 'monty' } });
    await t.run(EditorCmd.interrupt);
    await t.run(EditorCmd.restart);
    mock.state.quickPickAnswer = (items) => items.find((i: { backend: string }) => i.backend === 'container');
    await t.run(EditorCmd.pickBackend);
    assert.deepEqual(
      t.calls.map((c) => [c.command, c.arg]),
      [
        [Cmd.interrupt, { uri: t.uri }],
        [Cmd.restart, { uri: t.uri }],
        [Cmd.kernelInfo, { uri: t.uri }],
        [Cmd.setBackend, { uri: t.uri, backend: 'container' }],
      ],
    );
    const picked = mock.state.quickPicks[0]!.map((i: { label: string; description: string }) => [i.label, i.description]);
    assert.deepEqual(picked, [
      ['auto', ''],
      ['monty', '(current)'],
      ['container', ''],
    ]);
    assert.deepEqual(t.infos, [
      [t.uri, info],
      [t.uri, info],
    ]);
    assert.deepEqual(t.restarted, [t.uri, t.uri]);
  });

  it('list variables in a quick pick', async () => {
    const t = setup('x', new Position(0, 0), { [Cmd.variables]: { variables: [{ name: 'total', type: 'int', repr: '42' }] } });
    await t.run(EditorCmd.showVariables);
    assert.deepEqual(mock.state.quickPicks[0], [{ label: 'total', description: 'int', detail: '42' }]);
  });

  it('save the files the kernel chose in a quick pick', async () => {
    const files = [
      { path: '/home/ada/out/summary.csv', size: 2048, state: 'created' },
      { path: '/home/ada/old.txt', size: 0, state: 'deleted' },
    ];
    const t = setup('x', new Position(0, 0), { [Cmd.files]: { files, write: 'sandbox' }, [Cmd.saveFiles]: { saved: ['/home/ada/out/summary.csv'] } });
    mock.state.quickPickAnswer = (items) => items.filter((i: { path: string }) => i.path.endsWith('.csv'));
    await t.run(EditorCmd.saveFiles);
    assert.deepEqual(
      mock.state.quickPicks[0]!.map((i: { label: string; description: string; picked: boolean }) => [i.label, i.description, i.picked]),
      [
        ['+ out/summary.csv', 'created · 2.0 KiB', true],
        ['- old.txt', 'deleted: saving removes it', true],
      ],
    );
    assert.deepEqual(t.calls.map((c) => [c.command, c.arg]), [
      [Cmd.files, { uri: t.uri }],
      [Cmd.saveFiles, { uri: t.uri, paths: ['/home/ada/out/summary.csv'] }],
    ]);
    assert.match(mock.state.messages.at(-1)!.text, /saved 1 file to the workspace/);
  });

  it('say there is nothing to save when the kernel writes the workspace, or wrote nothing', async () => {
    let t = setup('x', new Position(0, 0), { [Cmd.files]: { files: [], write: 'workspace' } });
    await t.run(EditorCmd.saveFiles);
    assert.match(mock.state.messages.at(-1)!.text, /writes the workspace's files directly/);
    mock.reset();
    t = setup('x', new Position(0, 0), { [Cmd.files]: { files: [], write: 'sandbox' } });
    await t.run(EditorCmd.saveFiles);
    assert.match(mock.state.messages.at(-1)!.text, /no files that differ/);
    assert.equal(mock.state.quickPicks.length, 0);
    assert.deepEqual(t.calls.map((c) => c.command), [Cmd.files]);
  });

  it('report a failed request with the server message', async () => {
    const t = setup('x', new Position(0, 0));
    mock.state.commands.clear();
    registerCommands({
      api: () => ({
        execute: async () => {
          throw new Error('backyard.runCell: no open document has uri "file:///home/ada/demo.py"');
        },
      }),
      target: async () => ({ uri: t.uri, label: 'demo.py' }),
      restartNotebook: async () => undefined,
      interruptNotebook: async () => undefined,
      onKernelInfo: () => {},
      onRestarted: () => {},
      clearResults: () => {},
      refreshVariables: () => {},
      showOutput: () => {},
      showDisplays: async () => false,
    });
    await mock.state.commands.get(EditorCmd.runCell)!();
    assert.deepEqual(mock.state.messages.at(-1), { level: 'error', text: 'backyard: backyard.runCell: no open document has uri "file:///home/ada/demo.py"', items: [] });
  });
});
