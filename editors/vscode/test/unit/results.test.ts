import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DocumentResults } from '../../src/results';
import { execution, state } from './fixtures';

const pos = (line: number, character = 0) => ({ line, character });

describe('DocumentResults', () => {
  it('follows queued → running → done', () => {
    const r = new DocumentResults();
    assert.ok(r.onExecutionState(state('a', 1, 2, 'queued')));
    assert.equal(r.get('a')?.phase, 'queued');
    r.onExecutionState(state('a', 1, 2, 'running'));
    assert.ok(r.onOutput('a', 'hi\n'));
    assert.equal(r.get('a')?.streamed, 'hi\n');
    r.onExecutionState(state('a', 1, 2, 'done', execution()));
    const e = r.get('a')!;
    assert.equal(e.phase, 'done');
    assert.equal(e.execution?.status, 'ok');
    assert.equal(e.streamed, '');
    assert.equal(r.onOutput('a', 'late'), false);
  });

  it('shows what a thread printed after the execution ended under it (idle output)', () => {
    const r = new DocumentResults();
    r.onExecutionState(state('a', 1, 2, 'queued'));
    r.onExecutionState(state('a', 1, 2, 'done', execution({ stdout: 'started\n' })));
    assert.equal(r.onOutput('a', 'tick\n', 'stdout'), false, 'not idle: late output of the run');
    assert.ok(r.onOutput('a', 'tick\n', 'stdout', true));
    assert.ok(r.onOutput('a', 'warn\n', 'stderr', true));
    assert.equal(r.get('a')?.execution?.stdout, 'started\ntick\n');
    assert.equal(r.get('a')?.execution?.stderr, 'warn\n');
    assert.equal(r.onOutput('gone', 'x', 'stdout', true), false);
  });

  it('replaces the result of the same lines on rerun, and brings it back when the rerun is dropped', () => {
    const r = new DocumentResults();
    r.onExecutionState(state('a', 1, 2, 'queued'));
    r.onExecutionState(state('a', 1, 2, 'done', execution()));
    r.onExecutionState(state('b', 5, 6, 'queued'));
    r.onExecutionState(state('b', 5, 6, 'done', execution()));
    r.onExecutionState(state('c', 1, 2, 'queued'));
    assert.deepEqual(r.all().map((e) => e.executionId), ['b', 'c']);
    r.onExecutionState(state('c', 1, 2, 'done')); // dropped: no execution
    assert.deepEqual(r.all().map((e) => e.executionId).sort(), ['a', 'b']);
    r.onExecutionState(state('d', 2, 2, 'queued')); // a selection inside a's lines
    r.onExecutionState(state('d', 2, 2, 'done', execution()));
    assert.deepEqual(r.all().map((e) => e.executionId).sort(), ['b', 'd']);
  });

  it('moves results when lines are added or removed above them, and leaves them alone for edits below', () => {
    const r = new DocumentResults();
    r.onExecutionState(state('a', 4, 6, 'done', execution()));
    r.onTextChange({ range: { start: pos(0), end: pos(0) }, text: 'x\ny\n' });
    assert.deepEqual([r.get('a')!.startLine, r.get('a')!.lastLine, r.get('a')!.stale], [6, 8, false]);
    r.onTextChange({ range: { start: pos(1), end: pos(3) }, text: '' });
    assert.deepEqual([r.get('a')!.startLine, r.get('a')!.lastLine, r.get('a')!.stale], [4, 6, false]);
    assert.equal(r.onTextChange({ range: { start: pos(9), end: pos(9) }, text: 'z' }), false);
    assert.equal(r.get('a')!.stale, false);
  });

  it('marks a result stale when its lines are edited, and follows the edit', () => {
    const r = new DocumentResults();
    r.onExecutionState(state('a', 4, 6, 'done', execution()));
    assert.ok(r.onTextChange({ range: { start: pos(5, 2), end: pos(5, 2) }, text: '\nmore' }));
    const e = r.get('a')!;
    assert.equal(e.stale, true);
    assert.deepEqual([e.startLine, e.lastLine], [4, 7]);
  });

  it('marks a result stale on arrival when its lines changed while it ran', () => {
    const r = new DocumentResults();
    r.onExecutionState(state('a', 1, 2, 'queued'));
    r.onExecutionState(state('a', 1, 2, 'running'));
    r.onTextChange({ range: { start: pos(2, 1), end: pos(2, 1) }, text: 'x' });
    assert.equal(r.get('a')!.stale, false);
    r.onExecutionState(state('a', 1, 2, 'done', execution()));
    assert.equal(r.get('a')!.stale, true);
  });

  it('shows a run it never saw queued, and marks everything stale after a restart', () => {
    const r = new DocumentResults();
    r.onExecutionState(state('z', 3, 3, 'done', execution()));
    assert.equal(r.get('z')?.phase, 'done');
    assert.ok(r.markAllStale());
    assert.equal(r.get('z')?.stale, true);
  });

  it("takes an update of a finished run's display (update_display in a later cell)", () => {
    const r = new DocumentResults();
    const shown = (id: string | undefined, text: string) => ({ data: { 'text/plain': text }, ...(id ? { displayId: id } : {}) });
    r.onExecutionState(state('a', 1, 2, 'queued'));
    r.onExecutionState(state('a', 1, 2, 'done', execution({ displays: [shown('p', "'first'"), shown(undefined, "'other'")] })));
    const before = r.get('a')!.execution!;
    assert.ok(r.onDisplayUpdate('a', shown('p', "'second'")));
    assert.deepEqual(r.get('a')?.execution?.displays?.map((d) => d.data['text/plain']), ["'second'", "'other'"]);
    assert.equal(before.displays?.[0]?.data['text/plain'], "'first'", 'the record handed out is not changed');
    assert.equal(r.onDisplayUpdate('a', shown('q', 'x')), false, 'no output has that id');
    assert.equal(r.onDisplayUpdate('gone', shown('p', 'x')), false, 'no such run');
    r.onExecutionState(state('b', 4, 4, 'queued'));
    assert.equal(r.onDisplayUpdate('b', shown('p', 'x')), false, 'not finished: the running cell shows its own');
  });
});
