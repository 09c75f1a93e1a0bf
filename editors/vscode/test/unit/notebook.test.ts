import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type * as vscode from 'vscode';
import type { ServerApi } from '../../src/client';
import { controllerId, controllerLabel, isKernelUri, kernelUri, NotebookKernels, wholeRange, type DocSync } from '../../src/notebook';
import { executionOutputs } from '../../src/notebookOutput';
import { Cmd, type Execution } from '../../src/protocol';
import { mock, mockNotebook, NotebookCellOutput, NotebookCellOutputItem, Position, Uri } from '../mock/vscode';
import { execution } from './fixtures';

type Item = NotebookCellOutputItem;
// [mime, text] per item; binary images as their byte count.
const items = (outs: unknown[]) => (outs as NotebookCellOutput[]).map((o) => o.items.map((i: Item) => [i.mime, i.mime.startsWith('image/') ? `${i.data.length} bytes` : i.text]));

describe('notebook outputs', () => {
  it('map streams, the value with its MIME bundle, and the error', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64');
    const outs = executionOutputs(
      execution({ executionCount: 3, stdout: 'hi\n', stderr: 'warn\n', result: { text: '<Figure>', mime: { 'image/png': png, 'text/html': '<b>x</b>' } } }),
    ) as unknown as NotebookCellOutput[];
    assert.deepEqual(items(outs), [
      [['application/vnd.code.notebook.stdout', 'hi\n']],
      [['application/vnd.code.notebook.stderr', 'warn\n']],
      [
        ['image/png', '4 bytes'],
        ['text/html', '<b>x</b>'],
        ['text/plain', '<Figure>'],
      ],
    ]);
    assert.deepEqual([...outs[2]!.items[0]!.data], [0x89, 0x50, 0x4e, 0x47]);
    assert.deepEqual(outs[2]!.metadata, { outputType: 'execute_result', executionCount: 3 });
  });
  it('map display outputs in order, before the value, as display_data', () => {
    const outs = executionOutputs(
      execution({
        displays: [
          { data: { 'text/plain': '1' } },
          { data: { 'text/plain': '<IPython.core.display.HTML object>', 'text/html': '<b>h</b>' }, displayId: 'd1' },
        ],
        result: { text: '2' },
      }),
    ) as unknown as NotebookCellOutput[];
    assert.deepEqual(items(outs), [
      [['text/plain', '1']],
      [
        ['text/html', '<b>h</b>'],
        ['text/plain', '<IPython.core.display.HTML object>'],
      ],
      [['text/plain', '2']],
    ]);
    assert.deepEqual(outs[1]!.metadata, { outputType: 'display_data', transient: { display_id: 'd1' } });
  });
  it('place each display among the streams where it was shown, and the inline backend’s figures after the value', () => {
    const outs = executionOutputs(
      execution({
        stdout: 'héllo\nmore\n',
        stderr: 'err\n',
        displays: [
          { data: { 'text/plain': '1' }, stdoutBefore: 7 },
          { data: { 'text/plain': '2' }, stdoutBefore: 12, stderrBefore: 4 },
          { data: { 'text/plain': '<Figure>' }, stdoutBefore: 12, stderrBefore: 4, afterResult: true },
        ],
        result: { text: '3' },
      }),
    ) as unknown as NotebookCellOutput[];
    assert.deepEqual(items(outs), [
      [['application/vnd.code.notebook.stdout', 'héllo\n']],
      [['text/plain', '1']],
      [['application/vnd.code.notebook.stdout', 'more\n']],
      [['application/vnd.code.notebook.stderr', 'err\n']],
      [['text/plain', '2']],
      [['text/plain', '3']],
      [['text/plain', '<Figure>']],
    ]);
  });
  it('give errors their name, message and a traceback as the stack', () => {
    const outs = executionOutputs(
      execution({ status: 'error', error: { ename: 'ValueError', evalue: 'bad', traceback: [{ line: 1, name: '<module>', text: 'int("x")' }] } }),
    ) as unknown as NotebookCellOutput[];
    const err = JSON.parse(outs[0]!.items[0]!.text);
    assert.equal(outs[0]!.items[0]!.mime, 'application/vnd.code.notebook.error');
    assert.deepEqual([err.name, err.message], ['ValueError', 'bad']);
    assert.match(err.stack, /line 2, in <module>\n {4}int\("x"\)\nValueError: bad/);
  });
  it('report stops without a Python exception as errors too', () => {
    const names = (x: Execution) => JSON.parse((executionOutputs(x) as unknown as NotebookCellOutput[])[0]!.items[0]!.text).name;
    assert.equal(names(execution({ status: 'interrupted' })), 'KeyboardInterrupt');
    assert.equal(names(execution({ status: 'timeout' })), 'TimeoutError');
    assert.equal(names(execution({ status: 'crashed' })), 'KernelCrashed');
    assert.deepEqual(executionOutputs(execution()), []);
  });
});

describe('kernel documents', () => {
  it('have a stable uri per notebook', () => {
    const u = kernelUri(Uri.file('/w/report.ipynb') as unknown as vscode.Uri);
    assert.equal(u, 'file:///w/report.ipynb#backyard-kernel');
    assert.ok(isKernelUri(u));
    assert.ok(!isKernelUri('file:///w/report.py'));
  });
  it('are run over their whole text in UTF-16 units', () => {
    assert.deepEqual(wholeRange('a = "é😀"\nb'), { start: { line: 0, character: 0 }, end: { line: 1, character: 1 } });
    assert.deepEqual(wholeRange('x = "😀"'), { start: { line: 0, character: 0 }, end: { line: 0, character: 8 } });
  });
});

describe('NotebookKernels', () => {
  beforeEach(() => mock.reset());

  function setup(results: (Execution | undefined)[], onRun: (k: NotebookKernels) => Promise<unknown> = async () => {}) {
    const calls: { command: string; arg: Record<string, unknown> }[] = [];
    const syncs: string[] = [];
    // The running cell's outputs right after the streamed chunks, before the final record replaces them.
    const streamed: unknown[][] = [];
    let kernels: NotebookKernels | undefined;
    const api: ServerApi = {
      async execute<T>(command: string, arg: object): Promise<T> {
        calls.push({ command, arg: arg as Record<string, unknown> });
        if (command === Cmd.runRange) {
          const uri = (arg as { uri: string }).uri;
          kernels!.onOutput({ uri, executionId: 'x', stream: 'stdout', text: 'part 1 ' });
          kernels!.onOutput({ uri, executionId: 'x', stream: 'stdout', text: 'part 2\n' });
          await new Promise((r) => setImmediate(r));
          streamed.push(items(mock.state.controllers[0]!.executions.at(-1)!.outputs));
          await onRun(kernels!);
          const x = results.shift();
          return { executions: x ? [x] : [] } as T;
        }
        return { backend: 'monty', runtime: '', state: 'idle', executionCount: 0 } as T;
      },
    };
    const sync: DocSync = {
      open: async (uri, text, v) => void syncs.push(`open ${uri} v${v} ${JSON.stringify(text)}`),
      change: async (uri, text, v) => void syncs.push(`change ${uri} v${v} ${JSON.stringify(text)}`),
      close: async (uri) => void syncs.push(`close ${uri}`),
    };
    kernels = new NotebookKernels(api, sync);
    const controller = mock.state.controllers[0]!;
    return { calls, syncs, kernels, controller, streamed };
  }

  it('registers a controller for jupyter-notebook with execution order', () => {
    const { controller } = setup([]);
    assert.deepEqual([controller.id, controller.notebookType, controller.label], [controllerId, 'jupyter-notebook', controllerLabel]);
    assert.equal(controller.supportsExecutionOrder, true);
    assert.deepEqual(controller.supportedLanguages, ['python']);
    assert.ok(controller.interruptHandler);
  });

  it('runs each cell through runRange on the notebook kernel document, with outputs and execution order', async () => {
    const nb = mockNotebook('/w/report.ipynb', ['x = 20', 'print("part 1 part 2")\nx * 2']);
    const { calls, syncs, controller } = setup([execution({ executionCount: 1 }), execution({ executionCount: 2, stdout: 'part 1 part 2\n', result: { text: '40' } })]);
    await controller.executeHandler!(nb.getCells(), nb, controller);
    const uri = 'file:///w/report.ipynb#backyard-kernel';
    assert.deepEqual(syncs, [`open ${uri} v1 "x = 20"`, `change ${uri} v2 "print(\\"part 1 part 2\\")\\nx * 2"`]);
    assert.deepEqual(calls, [
      { command: Cmd.runRange, arg: { uri, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 6 } } } },
      { command: Cmd.runRange, arg: { uri, range: { start: { line: 0, character: 0 }, end: { line: 1, character: 5 } } } },
    ]);
    const [a, b] = controller.executions;
    assert.deepEqual([a!.executionOrder, a!.ended, b!.executionOrder, b!.ended], [1, { success: true }, 2, { success: true }]);
    assert.deepEqual(items(b!.outputs), [[['application/vnd.code.notebook.stdout', 'part 1 part 2\n']], [['text/plain', '40']]]);
  });

  it('streams output into the running cell as it arrives', async () => {
    const nb = mockNotebook('/w/s.ipynb', ['print(1)']);
    const { controller, streamed } = setup([]);
    await controller.executeHandler!(nb.getCells(), nb, controller);
    assert.deepEqual(streamed, [
      [
        [
          ['application/vnd.code.notebook.stdout', 'part 1 '],
          ['application/vnd.code.notebook.stdout', 'part 2\n'],
        ],
      ],
    ]);
    assert.deepEqual(controller.executions[0]!.ended, { success: undefined });
  });

  it('shows display outputs as they come, after the output so far; updates and clears them live', async () => {
    const nb = mockNotebook('/w/d.ipynb', ['display(1)']);
    const live: unknown[][] = [];
    const tick = () => new Promise((r) => setImmediate(r));
    const { controller } = setup([], async (k) => {
      const uri = 'file:///w/d.ipynb#backyard-kernel';
      const outs = () => items(controller.executions.at(-1)!.outputs);
      k.onDisplay({ uri, executionId: 'x', display: { data: { 'text/plain': 'v1', 'text/html': '<b>1</b>' }, displayId: 'd' } });
      k.onOutput({ uri, executionId: 'x', stream: 'stdout', text: 'after\n' });
      await tick();
      live.push(outs());
      k.onDisplay({ uri, executionId: 'x', display: { data: { 'text/plain': 'v2' }, displayId: 'd' }, update: true });
      await tick();
      live.push(outs());
      k.onDisplay({ uri, executionId: 'x', clear: true });
      await tick();
      live.push(outs());
    });
    await controller.executeHandler!(nb.getCells(), nb, controller);
    assert.deepEqual(live, [
      [
        [
          ['application/vnd.code.notebook.stdout', 'part 1 '],
          ['application/vnd.code.notebook.stdout', 'part 2\n'],
        ],
        [
          ['text/html', '<b>1</b>'],
          ['text/plain', 'v1'],
        ],
        [['application/vnd.code.notebook.stdout', 'after\n']],
      ],
      [
        [
          ['application/vnd.code.notebook.stdout', 'part 1 '],
          ['application/vnd.code.notebook.stdout', 'part 2\n'],
        ],
        [['text/plain', 'v2']],
        [['application/vnd.code.notebook.stdout', 'after\n']],
      ],
      [],
    ]);
  });

  it('updates a display an earlier cell showed (update_display), keeping that cell’s execution order and success', async () => {
    const nb = mockNotebook('/w/u.ipynb', ["h = display('first', display_id='p')", "update_display('second', display_id='p')"]);
    const uri = 'file:///w/u.ipynb#backyard-kernel';
    const first = execution({ id: 'e1', executionCount: 1, displays: [{ data: { 'text/plain': "'first'" }, displayId: 'p' }] });
    const second = { data: { 'text/plain': "'second'", 'text/html': '<b>2</b>' }, displayId: 'p' };
    let runs = 0;
    const { controller } = setup([first, execution({ id: 'e2', executionCount: 2 })], async (k) => {
      if (runs++ === 0) return;
      // As the server sends it: to the running execution ('x', whose output came first), then to an earlier one it still tracks (no second update).
      k.onDisplay({ uri, executionId: 'x', display: second, update: true });
      k.onDisplay({ uri, executionId: 'e1', display: second, update: true });
    });
    await controller.executeHandler!([nb.cells[0]], nb, controller);
    await controller.executeHandler!([nb.cells[1]], nb, controller);
    const cell = nb.cells[0];
    for (let i = 0; i < 100 && items(cell.outputs)[0]?.[0]?.[1] !== '<b>2</b>'; i++) await new Promise((r) => setImmediate(r));
    assert.deepEqual(items(cell.outputs), [
      [
        ['text/html', '<b>2</b>'],
        ['text/plain', "'second'"],
      ],
    ]);
    assert.deepEqual(cell.outputs[0].metadata, { outputType: 'display_data', transient: { display_id: 'p' } });
    assert.equal(controller.executions.length, 3, 'a short execution of the first cell');
    assert.deepEqual([cell.executionSummary.executionOrder, cell.executionSummary.success], [1, true]);
    assert.deepEqual(items(nb.cells[1].outputs), [], 'the running cell showed no display with that id');
  });

  // What a kernel's set_next_input payload (IPython's %load) comes as: a display with it in its metadata.
  const loaded = '# %load helper.py\ndef double(n):\n    return 2 * n\n';
  const payload = { data: { 'text/plain': loaded }, metadata: { payload: { source: 'set_next_input', replace: true } } };

  it('puts a %load payload in place of the cell’s text, as Jupyter does, and shows no output for it', async () => {
    const nb = mockNotebook('/w/l.ipynb', ['%load helper.py', 'x = 1']);
    const live: unknown[][] = [];
    let runs = 0;
    const { controller } = setup([execution({ executionCount: 1, displays: [payload] }), execution({ executionCount: 2 })], async (k) => {
      if (runs++ > 0) return;
      k.onDisplay({ uri: 'file:///w/l.ipynb#backyard-kernel', executionId: 'x', display: payload });
      await new Promise((r) => setImmediate(r));
      live.push(items(controller.executions[0]!.outputs));
    });
    await controller.executeHandler!(nb.getCells(), nb, controller);
    assert.deepEqual(nb.cells.map((c: { document: { text: string } }) => c.document.text), [loaded, 'x = 1']);
    const [a, b] = controller.executions;
    assert.deepEqual(live, [[[['application/vnd.code.notebook.stdout', 'part 1 '], ['application/vnd.code.notebook.stdout', 'part 2\n']]]], 'not shown as it came');
    assert.deepEqual([a!.outputs, a!.executionOrder, a!.ended, b!.ended], [[], 1, { success: true }, { success: true }]);
    assert.equal(mock.state.applied.length, 1);
  });

  it('keeps an edit of the cell made while it ran, and a payload that does not replace', async () => {
    const nb = mockNotebook('/w/k.ipynb', ['%load helper.py', '%recall 1']);
    const notReplacing = { ...payload, metadata: { payload: { source: 'set_next_input', replace: false } } };
    let runs = 0;
    const { controller } = setup([execution({ displays: [payload] }), execution({ displays: [notReplacing] })], async () => {
      if (runs++ === 0) mock.typeText(nb.cells[0].document, new Position(0, 0), '# mine\n');
    });
    await controller.executeHandler!(nb.getCells(), nb, controller);
    assert.deepEqual(nb.cells.map((c: { document: { text: string } }) => c.document.text), ['# mine\n%load helper.py', '%recall 1']);
    assert.equal(mock.state.applied.length, 0);
  });

  it('shows no output for %edit’s payload either (the server opens the file)', async () => {
    const nb = mockNotebook('/w/m.ipynb', ['%edit helper.py']);
    const edit = { data: { 'text/plain': '/w/helper.py' }, metadata: { payload: { source: 'edit_magic', filename: '/w/helper.py', line_number: null } } };
    const { controller } = setup([execution({ stdout: 'x\n', displays: [edit] })], async (k) => {
      k.onDisplay({ uri: 'file:///w/m.ipynb#backyard-kernel', executionId: 'x', display: edit });
    });
    await controller.executeHandler!(nb.getCells(), nb, controller);
    assert.deepEqual(items(controller.executions[0]!.outputs), [[['application/vnd.code.notebook.stdout', 'x\n']]]);
    assert.deepEqual(nb.cells.map((c: { document: { text: string } }) => c.document.text), ['%edit helper.py']);
  });

  it('stops at the first failing cell, marks its error line, and skips the rest', async () => {
    const nb = mockNotebook('/w/e.ipynb', ['a = 1', '\n1/0', 'b = 2']);
    const err = execution({ status: 'error', executionCount: 2, error: { ename: 'ZeroDivisionError', evalue: 'division by zero', traceback: [{ line: 1, name: '<module>', text: '1/0' }] } });
    const { calls, controller } = setup([execution(), err, execution()]);
    await controller.executeHandler!(nb.getCells(), nb, controller);
    assert.equal(calls.length, 2);
    assert.deepEqual(controller.executions.map((e) => e.ended), [{ success: true }, { success: false }, { success: undefined }]);
    assert.equal(controller.executions[2]!.started, false);
    const diags = mock.state.diagnostics.get('vscode-notebook-cell:/w/e.ipynb#C1')!;
    assert.equal(diags[0]!.message, 'ZeroDivisionError: division by zero');
    assert.equal(diags[0]!.range.start.line, 1);
  });

  it('interrupts through the server and drops cells queued behind', async () => {
    const nb = mockNotebook('/w/i.ipynb', ['while True: pass', 'x = 1']);
    const { calls, controller } = setup([execution({ status: 'interrupted' }), execution()], (k) => k.interrupt(nb));
    await controller.executeHandler!(nb.getCells(), nb, controller);
    assert.deepEqual(
      calls.map((c) => c.command),
      [Cmd.runRange, Cmd.interrupt],
    );
    assert.deepEqual(controller.executions.map((e) => e.ended?.success), [false, undefined]);
  });

  it('restarts the kernel and closes its document with the notebook', async () => {
    const nb = mockNotebook('/w/r.ipynb', ['x = 1']);
    const { calls, syncs, controller, kernels } = setup([execution()]);
    await controller.executeHandler!(nb.getCells(), nb, controller);
    const info = await kernels.restart(nb);
    assert.equal(info?.executionCount, 0);
    assert.deepEqual(calls.at(-1), { command: Cmd.restart, arg: { uri: 'file:///w/r.ipynb#backyard-kernel' } });
    mock.state.emitters.closeNotebook.fire(nb);
    await new Promise((r) => setImmediate(r));
    assert.equal(syncs.at(-1), 'close file:///w/r.ipynb#backyard-kernel');
  });

  it('reopens its documents after the server restarted', async () => {
    const nb = mockNotebook('/w/o.ipynb', ['x = 1']);
    const { syncs, controller, kernels } = setup([execution(), execution()]);
    await controller.executeHandler!(nb.getCells(), nb, controller);
    kernels.serverRestarted();
    await controller.executeHandler!(nb.getCells(), nb, controller);
    assert.deepEqual(
      syncs.map((s) => s.split(' ')[0]),
      ['open', 'open'],
    );
  });
});
