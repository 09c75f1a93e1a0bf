// The notebook controller's code (src/notebook.ts) against the real server:
// kernel documents opened by the extension, cells run by runRange, outputs
// streamed and mapped to notebook outputs, interrupt and restart.

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { isKernelUri, NotebookKernels } from '../../src/notebook';
import type { OutputParams } from '../../src/protocol';
import { mock, mockNotebook, type MockController, type NotebookCellOutput } from '../mock/vscode';
import { Session } from './harness';

let s: Session;
let kernels: NotebookKernels;
let controller: MockController;

beforeEach(async () => {
  mock.reset();
  s = await Session.start();
  kernels = new NotebookKernels(s.api, s.docSync);
  controller = mock.state.controllers[0]!;
  // As the extension routes them: output of a kernel document goes to the notebook.
  s.onNotification((m) => {
    if (m.method === 'backyard/output' && isKernelUri((m.params as OutputParams).uri)) kernels.onOutput(m.params as OutputParams);
  });
});
afterEach(async () => {
  kernels.dispose();
  await s.stop();
});

const outputs = (i: number) =>
  (controller.executions[i]!.outputs as NotebookCellOutput[]).map((o) =>
    o.items.map((it) => (it.mime === 'application/vnd.code.notebook.error' ? ['error', JSON.parse(it.text).name, JSON.parse(it.text).message] : [it.mime, it.text])),
  );

describe('notebook kernel', () => {
  it('runs cells in order with execution counts and outputs, and stops at an error', async () => {
    const nb = mockNotebook('/tmp/backyard-contract/a.ipynb', ['x = 20', 'print("hi")\nx * 2', 'def f():\n    return 1 / 0\nf()', 'x']);
    await controller.executeHandler!(nb.getCells(), nb, controller);
    const ex = controller.executions;
    assert.deepEqual(
      ex.map((e) => [e.executionOrder, e.ended?.success]),
      [
        [1, true],
        [2, true],
        [3, false],
        [undefined, undefined],
      ],
    );
    assert.deepEqual(outputs(0), []);
    assert.deepEqual(outputs(1), [[['application/vnd.code.notebook.stdout', 'hi\n']], [['text/plain', '40']]]);
    assert.deepEqual(outputs(2), [[['error', 'ZeroDivisionError', 'division by zero']]]);
    const err = JSON.parse(controller.executions[2]!.outputs[0]!.items[0]!.text);
    assert.match(err.stack, /line 3, in <module>\n {4}f\(\)\n {2}line 2, in f\n {4}return 1 \/ 0/);
    // The error marker goes on the failing line of that cell, not on the notebook's kernel document.
    const d = mock.state.diagnostics.get('vscode-notebook-cell:/tmp/backyard-contract/a.ipynb#C2')!;
    assert.deepEqual([d[0]!.range.start.line, d[0]!.message], [1, 'ZeroDivisionError: division by zero']);
    assert.equal(ex[3]!.started, false);
  });

  it('keeps one kernel per notebook', async () => {
    const a = mockNotebook('/tmp/backyard-contract/one.ipynb', ['v = "one"', 'v']);
    const b = mockNotebook('/tmp/backyard-contract/two.ipynb', ['v']);
    await controller.executeHandler!(a.getCells(), a, controller);
    await controller.executeHandler!(b.getCells(), b, controller);
    assert.deepEqual(outputs(1), [[['text/plain', "'one'"]]]);
    assert.deepEqual(outputs(2), [[['error', 'NameError', "name 'v' is not defined"]]]);
    assert.equal(controller.executions[2]!.executionOrder, 1);
  });

  it('interrupts a running cell, drops the cells queued behind it, and restarts', async () => {
    const nb = mockNotebook('/tmp/backyard-contract/i.ipynb', ['n = 1', 'while True:\n    n += 1', 'n']);
    const run = controller.executeHandler!(nb.getCells(), nb, controller);
    await s.waitFor((m) => m.method === 'backyard/executionState' && isKernelUri(m.params.uri) && m.params.state === 'running' && m.params.range.end.line === 1, 'the loop running');
    await controller.interruptHandler!(nb);
    await run;
    assert.deepEqual(
      controller.executions.map((e) => e.ended?.success),
      [true, false, undefined],
    );
    assert.equal(outputs(1)[0]![0]![0], 'error');
    assert.equal(outputs(1)[0]![0]![1], 'KeyboardInterrupt');
    // The kernel lives on with the state from before the interrupted cell.
    const again = mockNotebook('/tmp/backyard-contract/i.ipynb', ['n']);
    await controller.executeHandler!(again.getCells(), nb, controller);
    assert.deepEqual(outputs(3), [[['text/plain', '1']]]);
    const info = await kernels.restart(nb);
    assert.equal(info?.executionCount, 0);
    await controller.executeHandler!(again.getCells(), nb, controller);
    assert.deepEqual(outputs(4), [[['error', 'NameError', "name 'n' is not defined"]]]);
    assert.equal(controller.executions[4]!.executionOrder, 1);
  });

  it('streams output into the cell while it runs', async () => {
    const nb = mockNotebook('/tmp/backyard-contract/s.ipynb', ['for i in range(3):\n    print(i)']);
    const seen: string[] = [];
    s.onNotification((m) => {
      if (m.method === 'backyard/output') seen.push(m.params.text);
    });
    await controller.executeHandler!(nb.getCells(), nb, controller);
    assert.equal(seen.join(''), '0\n1\n2\n');
    assert.deepEqual(outputs(0), [[['application/vnd.code.notebook.stdout', '0\n1\n2\n']]]);
  });

  it('closes the kernel document with the notebook', async () => {
    const nb = mockNotebook('/tmp/backyard-contract/c.ipynb', ['1']);
    await controller.executeHandler!(nb.getCells(), nb, controller);
    mock.state.emitters.closeNotebook.fire(nb);
    await new Promise((r) => setImmediate(r));
    await assert.rejects(s.execute('backyard.kernelInfo', { uri: 'file:///tmp/backyard-contract/c.ipynb#backyard-kernel' }), /no open document/);
  });
});
