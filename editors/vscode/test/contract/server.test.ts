// The extension's side of the LSP contract, against the real server: what
// VS Code sends (capabilities, settings, command arguments built by the
// extension's own functions) and what the extension's handlers make of the
// answers and notifications.

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { EditorCmd } from '../../src/commands';
import { specsByLook } from '../../src/decorations';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fileItems } from '../../src/files';
import { Cmd, lineArg, rangeArg, Request, type Execution, type ExecutionStateParams, type FilesResult, type InterruptResult, type KernelInfo, type QueuedResult, type RunResult, type SaveFilesResult, type VariablesResult } from '../../src/protocol';
import { DocumentResults } from '../../src/results';
import { extensionInitialize, Session } from './harness';
import { mock } from '../mock/vscode';

let s: Session;
let n = 0;
const newUri = (name: string) => `file:///tmp/backyard-contract/${++n}-${name}.py`;

beforeEach(() => mock.reset());
afterEach(async () => {
  if (s) await s.stop();
  s = undefined!;
});

const warnings = () => s.notifications('window/showMessage').filter((p: { type: number }) => p.type <= 2);

/** Waits for the done state of one execution and returns its record. */
async function done(id: string): Promise<Execution> {
  const m = await s.waitFor((m) => m.method === 'backyard/executionState' && m.params.executionId === id && m.params.state === 'done', `execution ${id} done`);
  return m.params.execution;
}

function states(id: string): string[] {
  return s.notifications('backyard/executionState').filter((p: ExecutionStateParams) => p.executionId === id).map((p: ExecutionStateParams) => p.state);
}

/** Feeds the recorded executionState notifications of uri to the inline-results model, as the extension does. */
function inlineOf(uri: string, lineCount: number) {
  const r = new DocumentResults();
  for (const p of s.notifications('backyard/executionState')) if (p.uri === uri) r.onExecutionState(p);
  const specs = specsByLook(r.all(), lineCount);
  return Object.fromEntries([...specs].filter(([, v]) => v.length > 0).map(([k, v]) => [k, v.map((x) => [x.line, x.text])]));
}

describe('initialize', () => {
  it('sends what VS Code sends and gets the commands, lenses, hints and UTF-16 positions', async () => {
    const { capabilities } = extensionInitialize();
    assert.equal(capabilities.workspace?.codeLens?.refreshSupport, true);
    assert.equal(capabilities.workspace?.inlayHint?.refreshSupport, true);
    assert.equal(capabilities.window?.workDoneProgress, true);
    assert.deepEqual(capabilities.general?.positionEncodings, ['utf-16']);
    s = await Session.start();
    const caps = s.init.capabilities;
    assert.equal(caps.positionEncoding, 'utf-16');
    assert.deepEqual(caps.textDocumentSync, { openClose: true, change: 2 });
    assert.ok(caps.codeLensProvider);
    assert.ok(caps.inlayHintProvider);
    // vscode-languageclient registers exactly these; the extension's own commands must not collide.
    const commands = caps.executeCommandProvider?.commands ?? [];
    assert.deepEqual([...commands].sort(), Object.values(Cmd).sort());
    for (const id of Object.values(EditorCmd)) assert.ok(!commands.includes(id), id);
    // shutdown and exit end the server cleanly, as VS Code stops it.
    assert.equal(await s.stop(), 0);
    s = undefined!;
  });

  it('accepts the extension settings without a warning, defaults and changed ones alike', async () => {
    s = await Session.start();
    await s.execute(Cmd.kernelInfo, { uri: 'file:///nowhere.py' }).catch(() => undefined); // a round trip: earlier notifications are in
    assert.deepEqual(warnings(), []);
    await s.stop();
    s = await Session.start({ backend: 'monty', timeout: 5, memory: 128, recursionLimit: 500, maxOutputBytes: 10000, autoInstall: 'on', 'container.image': 'python:3.12-slim', 'container.runtime': 'runc', 'container.network': 'none', 'container.mountWorkspace': false });
    await s.execute(Cmd.kernelInfo, { uri: 'file:///nowhere.py' }).catch(() => undefined);
    assert.deepEqual(warnings(), []);
  });
});

describe('code lenses', () => {
  it('carry server commands with one {uri, line} argument, on each cell header', async () => {
    s = await Session.start();
    const uri = newUri('lenses');
    await s.open(uri, 'import math\n# %%\na = 1\n# %% [markdown]\n# text\n# %% Second\nb = 2\n');
    const lenses = (await s.conn.sendRequest('textDocument/codeLens', { textDocument: { uri } })) as { range: { start: { line: number } }; command: { title: string; command: string; arguments?: unknown[] } }[];
    const commands = s.init.capabilities.executeCommandProvider!.commands;
    const byLine = new Map<number, string[]>();
    for (const l of lenses) {
      byLine.set(l.range.start.line, [...(byLine.get(l.range.start.line) ?? []), l.command.title]);
      assert.ok(commands.includes(l.command.command), l.command.command);
      assert.deepEqual(l.command.arguments, [{ uri, line: l.range.start.line }]);
    }
    assert.deepEqual([...byLine], [
      [0, ['▶ Run Cell', 'Run Below']],
      [1, ['▶ Run Cell', 'Run Above', 'Run Below']],
      [5, ['▶ Run Cell', 'Run Above', 'Run Below']],
    ]);
  });
});

describe('running cells', () => {
  it('runs the cell at the cursor (Ctrl+Enter): queued at once, then streamed output and the result inline', async () => {
    s = await Session.start();
    const uri = newUri('run');
    const text = '# %%\nx = 20\nprint("hi")\nx * 2\n';
    await s.open(uri, text);
    const q = await s.execute<QueuedResult>(Cmd.runCell, lineArg(uri, 2, false));
    assert.equal(q.queued.length, 1);
    const id = q.queued[0]!;
    const x = await done(id);
    assert.deepEqual([x.status, x.stdout, x.result?.text, x.executionCount, x.backend], ['ok', 'hi\n', '40', 1, 'monty']);
    assert.deepEqual(x.range, { start: { line: 1, character: 0 }, end: { line: 3, character: 5 } });
    assert.deepEqual(states(id), ['queued', 'running', 'done']);
    const out = s.messages.findIndex((m) => m.method === 'backyard/output' && m.params.executionId === id);
    const end = s.messages.findIndex((m) => m.method === 'backyard/executionState' && m.params.executionId === id && m.params.state === 'done');
    assert.ok(out >= 0 && out < end, 'output streams before the execution ends');
    assert.deepEqual(s.messages[out]!.params, { uri, executionId: id, stream: 'stdout', text: 'hi\n' });
    const kernel = s.notifications('backyard/kernelState').filter((p: { uri: string }) => p.uri === uri);
    assert.deepEqual(kernel.map((p: { state: string }) => p.state), ['starting', 'busy', 'idle']);
    await s.waitFor((m) => m.method === 'workspace/codeLens/refresh', 'a code lens refresh', true);
    assert.deepEqual(inlineOf(uri, text.split('\n').length), { ok: [[3, '[1] ✓ 40']] });
  });

  it('streams output as it is printed', async () => {
    s = await Session.start();
    const uri = newUri('stream');
    await s.open(uri, 'for i in range(3):\n    print(i)\n');
    const res = await s.execute<RunResult>(Cmd.runCell, lineArg(uri, 0));
    const id = res.executions![0]!.id;
    const streamed = s.notifications('backyard/output').filter((p: { executionId: string }) => p.executionId === id);
    assert.equal(streamed.map((p: { text: string }) => p.text).join(''), '0\n1\n2\n');
    assert.equal(res.executions![0]!.stdout, '0\n1\n2\n');
  });

  it('runs exactly the selection (Shift+Enter), dedented', async () => {
    s = await Session.start();
    const uri = newUri('selection');
    await s.open(uri, 'def f():\n    y = 2\n    y * 21\n');
    const res = await s.execute<RunResult>(Cmd.runRange, rangeArg(uri, { start: { line: 1, character: 4 }, end: { line: 2, character: 10 } }));
    const x = res.executions![0]!;
    assert.deepEqual([x.status, x.result?.text], ['ok', '42']);
    assert.deepEqual(inlineOf(uri, 4), { ok: [[2, '[1] ✓ 42']] });
  });

  it('reports an exception as a result and a diagnostic on the failing line, cleared by an edit', async () => {
    s = await Session.start();
    const uri = newUri('error');
    const text = '# %%\ndef f(n):\n    return 10 / n\n\nf(0)\n';
    await s.open(uri, text);
    const res = await s.execute<RunResult>(Cmd.runCell, lineArg(uri, 1));
    const x = res.executions![0]!;
    assert.equal(x.status, 'error');
    assert.equal(x.error?.ename, 'ZeroDivisionError');
    assert.deepEqual(x.error?.traceback.map((f) => f.line), [4, 2]);
    const diag = await s.waitFor((m) => m.method === 'textDocument/publishDiagnostics' && m.params.uri === uri && m.params.diagnostics.length > 0, 'a diagnostic');
    assert.deepEqual(
      diag.params.diagnostics.map((d: { range: { start: { line: number } }; source: string; severity: number }) => [d.range.start.line, d.source, d.severity]),
      [[2, 'backyard', 1]],
    );
    assert.deepEqual(inlineOf(uri, 6), { error: [[4, '[1] ✗ ZeroDivisionError: division by zero']] });
    await s.edit(uri, { start: { line: 4, character: 2 }, end: { line: 4, character: 3 } }, '1');
    await s.waitFor((m) => m.method === 'textDocument/publishDiagnostics' && m.params.uri === uri && m.params.diagnostics.length === 0, 'the diagnostic cleared');
  });

  it('interrupts a `while True` cell and keeps the namespace', async () => {
    s = await Session.start();
    const uri = newUri('interrupt');
    await s.open(uri, '# %%\nn = 5\n# %%\nwhile True:\n    n += 1\n');
    await s.execute<RunResult>(Cmd.runCell, lineArg(uri, 1));
    const running = s.execute<RunResult>(Cmd.runCell, lineArg(uri, 3));
    await s.waitFor((m) => m.method === 'backyard/executionState' && m.params.uri === uri && m.params.state === 'running' && m.params.range.start.line === 3, 'the loop running');
    const r = await s.execute<InterruptResult>(Cmd.interrupt, { uri });
    assert.equal(r.interrupted, true);
    const x = (await running).executions![0]!;
    assert.equal(x.status, 'interrupted');
    // Monty cannot keep a stopped cell's effects: the record says so.
    assert.match(x.notes?.[0] ?? '', /the namespace was restored to its state before this cell/);
    const after = await s.execute<RunResult>(Cmd.runRange, rangeArg(uri, { start: { line: 1, character: 0 }, end: { line: 1, character: 1 } }));
    assert.deepEqual([after.executions![0]!.status, after.executions![0]!.result?.text], ['ok', '5']);
    const shown = inlineOf(uri, 6);
    assert.equal(shown.interrupted?.length, 1);
    assert.equal(shown.interrupted![0]![0], 4);
    assert.match(String(shown.interrupted![0]![1]), /■ interrupted$/);
    assert.deepEqual(shown.ok, [[1, `[${after.executions![0]!.executionCount}] ✓ 5`]]);
  });

  it('answers input() from the input box: the extension advertises it, the server asks', async () => {
    s = await Session.start();
    const asked: unknown[] = [];
    s.answers.set(Request.input, (p) => (asked.push(p), { value: 'Ada' }));
    const uri = newUri('input');
    await s.open(uri, '# %%\nname = input("name? ")\nprint("hello", name)\nname\n');
    const x = (await s.execute<RunResult>(Cmd.runCell, lineArg(uri, 1))).executions![0]!;
    assert.deepEqual([x.status, x.stdout, x.result?.text], ['ok', 'name? Ada\nhello Ada\n', "'Ada'"]);
    assert.deepEqual(asked, [{ uri, executionId: x.id, prompt: 'name? ' }]);
    // Dismissed (what the input box gives for Escape): KeyboardInterrupt.
    s.answers.set(Request.input, () => ({ value: null }));
    const y = (await s.execute<RunResult>(Cmd.runCell, lineArg(uri, 1))).executions![0]!;
    assert.deepEqual([y.status, y.error?.ename], ['interrupted', 'KeyboardInterrupt']);
  });

  it('names the file and line of a library frame', async () => {
    s = await Session.start({ backend: 'monty' });
    const uri = newUri('evalframe');
    await s.open(uri, '# %%\neval("1/0")\n');
    const x = (await s.execute<RunResult>(Cmd.runCell, lineArg(uri, 1))).executions![0]!;
    const outside = x.error!.traceback.find((f) => f.line < 0)!;
    assert.deepEqual([outside.file, outside.fileLine], ['<string>', 1]);
  });

  it('restarts to an empty namespace with the execution count back to 0', async () => {
    s = await Session.start();
    const uri = newUri('restart');
    await s.open(uri, 'x = 1\n');
    await s.execute<RunResult>(Cmd.runCell, lineArg(uri, 0));
    const info = await s.execute<KernelInfo>(Cmd.restart, { uri });
    assert.equal(info.executionCount, 0);
    await s.replace(uri, 'x\n');
    const x = (await s.execute<RunResult>(Cmd.runCell, lineArg(uri, 0))).executions![0]!;
    assert.deepEqual([x.status, x.error?.ename, x.executionCount], ['error', 'NameError', 1]);
  });

  it('stops at a time limit from the settings', async () => {
    s = await Session.start({ timeout: 1 });
    const uri = newUri('timeout');
    await s.open(uri, 'while True:\n    pass\n');
    const x = (await s.execute<RunResult>(Cmd.runCell, lineArg(uri, 0))).executions![0]!;
    assert.equal(x.status, 'timeout');
    assert.deepEqual(Object.keys(inlineOf(uri, 3)), ['error']);
  });
});

describe('kernel commands', () => {
  it('switch the backend, describe the kernel and list variables', async () => {
    s = await Session.start();
    const uri = newUri('kernel');
    await s.open(uri, 'total = 40 + 2\nname = "backyard"\n');
    const info = await s.execute<KernelInfo>(Cmd.setBackend, { uri, backend: 'monty' });
    assert.equal(info.backend, 'monty');
    await s.execute<RunResult>(Cmd.runAll, { uri });
    const k = await s.execute<KernelInfo>(Cmd.kernelInfo, { uri });
    assert.deepEqual([k.backend, k.state, k.executionCount], ['monty', 'idle', 1]);
    const vars = await s.execute<VariablesResult>(Cmd.variables, { uri });
    const byName = Object.fromEntries(vars.variables.map((v) => [v.name, [v.type, v.repr]]));
    assert.deepEqual(byName.total, ['int', '42']);
    assert.deepEqual(byName.name, ['str', "'backyard'"]);
  });

  it('list and save the files a cell wrote, shown under the cell', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'backyard-files-'));
    writeFileSync(join(dir, 'in.csv'), 'n\n3\n');
    s = await Session.start({ backend: 'monty' });
    const uri = pathToFileURL(join(dir, 'nb.py')).toString();
    const text = "rows = open('in.csv').read().split()\nopen('out.txt', 'w').write(rows[1])\n";
    await s.open(uri, text);
    const run = await s.execute<RunResult>(Cmd.runAll, { uri });
    const x = run.executions![0]!;
    assert.deepEqual(x.files, [{ path: join(dir, 'out.txt'), state: 'created' }]);
    const r = new DocumentResults();
    for (const p of s.notifications('backyard/executionState')) if (p.uri === uri) r.onExecutionState(p);
    assert.equal(specsByLook(r.all(), 3, dir).get('ok')![0]!.text, '[1] ✓ 1 · + out.txt');
    const list = await s.execute<FilesResult>(Cmd.files, { uri });
    assert.deepEqual(list, { files: [{ path: join(dir, 'out.txt'), size: 1, state: 'created' }], write: 'sandbox' });
    assert.ok(!existsSync(join(dir, 'out.txt')));
    const saved = await s.execute<SaveFilesResult>(Cmd.saveFiles, { uri, paths: fileItems(list.files, dir).map((i) => i.path) });
    assert.deepEqual(saved.saved, [join(dir, 'out.txt')]);
    assert.equal(readFileSync(join(dir, 'out.txt'), 'utf8'), '3');
    rmSync(dir, { recursive: true, force: true });
  });

  it('answer a bad argument with an error naming the expected shape', async () => {
    s = await Session.start();
    await assert.rejects(s.execute(Cmd.runCell, { uri: 'file:///not-open.py', line: 0 }), /no open document/);
    await assert.rejects(s.conn.sendRequest('workspace/executeCommand', { command: Cmd.runCell, arguments: ['file:///x.py', 0] }), /one JSON object argument/);
  });
});
