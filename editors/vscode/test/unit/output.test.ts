import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OutputLog, whereLabel } from '../../src/output';
import { execution } from './fixtures';

function recorder() {
  const lines: string[] = [];
  const log = { info: (m: string) => lines.push(`I ${m}`), warn: (m: string) => lines.push(`W ${m}`), error: (m: string) => lines.push(`E ${m}`) };
  return { lines, out: new OutputLog(log) };
}

describe('OutputLog', () => {
  it('logs whole lines as they stream, then the rest, the summary and the value', () => {
    const { lines, out } = recorder();
    out.onOutput({ uri: 'u', executionId: 'e1', stream: 'stdout', text: 'one\ntw' }, 'a.py:3');
    assert.deepEqual(lines, ['I a.py:3 │ one']);
    out.onOutput({ uri: 'u', executionId: 'e1', stream: 'stderr', text: 'careful\n' }, 'a.py:3');
    out.onOutput({ uri: 'u', executionId: 'e1', stream: 'stdout', text: 'o' }, 'a.py:3');
    out.onDone(execution({ id: 'e1', executionCount: 7, stdout: 'one\ntwo', stderr: 'careful\n', result: { text: '42' } }), 'a.py:3');
    assert.deepEqual(lines, ['I a.py:3 │ one', 'W a.py:3 │ careful', 'I a.py:3 │ two', 'I [7] a.py:3 ok · 1.3 ms · monty', 'I a.py:3 │ Out[7]: 42']);
  });
  it('logs what a thread printed after the execution ended at once, whole lines and the rest', () => {
    const { lines, out } = recorder();
    out.onOutput({ uri: 'u', executionId: 'e1', stream: 'stdout', text: 'tick 1\ntick', idle: true }, 'a.py:3');
    assert.deepEqual(lines, ['I a.py:3 │ tick 1', 'I a.py:3 │ tick']);
  });
  it('logs the record when nothing streamed, and errors with their traceback', () => {
    const { lines, out } = recorder();
    out.onDone(
      execution({ status: 'error', stdout: 'x\n', error: { ename: 'NameError', evalue: "name 'y' is not defined", traceback: [{ line: 0, name: '<module>', text: 'y' }] } }),
      'b.py:1',
    );
    assert.deepEqual(lines, [
      'I b.py:1 │ x',
      "E [1] b.py:1 error: NameError: name 'y' is not defined · 1.3 ms · monty",
      'E b.py:1 │ Traceback (most recent call last):',
      'E b.py:1 │   line 1, in <module>',
      'E b.py:1 │     y',
      "E b.py:1 │ NameError: name 'y' is not defined",
    ]);
  });
  it('logs no payload (%load, %edit): it is no output', () => {
    const { lines, out } = recorder();
    const displays = [
      { data: { 'text/plain': '# %load f.py\nx = 1' }, metadata: { payload: { source: 'set_next_input', replace: true } } },
      { data: { 'text/plain': '/w/f.py' }, metadata: { payload: { source: 'edit_magic', filename: '/w/f.py', line_number: 3 } } },
      { data: { 'text/plain': 'shown' } },
    ];
    out.onDone(execution({ displays }), 'd.py:1');
    assert.deepEqual(lines.slice(1), ['I d.py:1 │ shown']);
  });
  it('logs the notes of a run', () => {
    const { lines, out } = recorder();
    out.onDone(execution({ status: 'interrupted', notes: ['the namespace was restored'] }), 'c.py:2');
    assert.equal(lines.at(-1), 'W c.py:2 │ note: the namespace was restored');
  });
  it('names a run by file and 1-based line', () => {
    assert.equal(whereLabel('file:///home/ada/my%20notes.py', 11), 'my notes.py:12');
  });
});
