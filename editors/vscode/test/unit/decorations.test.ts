import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { decorationStyle, InlineResults, specsByLook } from '../../src/decorations';
import { DocumentResults } from '../../src/results';
import { mock, mockDocument, mockEditor, Position, window } from '../mock/vscode';
import { execution, state } from './fixtures';

const text = '# %%\nx = 1\nx + 1\n# %%\nprint("hi")\n1/0\n';

describe('decoration types', () => {
  it('colour each look with its theme colour', () => {
    const style = decorationStyle('error') as { after: { color: { id: string } } };
    assert.equal(style.after.color.id, 'backyard.result.error');
  });
  it('skip results whose lines are gone', () => {
    const r = new DocumentResults();
    r.onExecutionState(state('a', 8, 9, 'done', execution()));
    assert.equal([...specsByLook(r.all(), 5).values()].flat().length, 0);
  });
});

describe('InlineResults', () => {
  beforeEach(() => mock.reset());

  function setup(enabled = true) {
    const doc = mockDocument(text);
    const ed = mockEditor(doc);
    window.visibleTextEditors = [ed];
    const inline = new InlineResults(() => enabled);
    const shown = (look: string) =>
      (ed.decorations.get(mock.decorationKey(look)) ?? []).map((o: { range: { start: { line: number } }; renderOptions: { after: { contentText: string } } }) => [
        o.range.start.line,
        o.renderOptions.after.contentText,
      ]);
    return { doc, ed, inline, shown };
  }

  it('draws each result after the last line of its code, in the colour of its status', () => {
    const { inline, shown, ed } = setup();
    const uri = 'file:///home/ada/demo.py';
    inline.onExecutionState(state('a', 1, 2, 'queued', undefined, uri));
    assert.deepEqual(shown('running'), [[2, '⋯ queued']]);
    inline.onExecutionState(state('a', 1, 2, 'done', execution({ result: { text: '2' } }), uri));
    inline.onExecutionState(state('b', 4, 5, 'queued', undefined, uri));
    inline.onExecutionState(state('b', 4, 5, 'done', execution({ status: 'error', executionCount: 2, stdout: 'hi\n', error: { ename: 'ZeroDivisionError', evalue: 'division by zero', traceback: [{ line: 5, name: '<module>', text: '1/0' }] } }), uri));
    assert.deepEqual(shown('ok'), [[2, '[1] ✓ 2']]);
    assert.deepEqual(shown('error'), [[5, '[2] ✗ ZeroDivisionError: division by zero']]);
    assert.deepEqual(shown('running'), []);
    const hover = ed.decorations.get(mock.decorationKey('error'))![0].hoverMessage.value as string;
    assert.match(hover, /hi/);
    assert.match(hover, /line 6, in <module>/);
  });

  it('replaces a result on rerun and turns it stale when its cell is edited', () => {
    const { inline, shown, doc } = setup();
    const uri = doc.uri.toString();
    inline.onExecutionState(state('a', 1, 2, 'done', execution({ result: { text: '2' } }), uri));
    inline.onExecutionState(state('c', 1, 2, 'done', execution({ executionCount: 3, result: { text: '3' } }), uri));
    assert.deepEqual(shown('ok'), [[2, '[3] ✓ 3']]);
    mock.typeText(doc, new Position(2, 5), '0');
    assert.deepEqual(shown('ok'), []);
    assert.deepEqual(shown('stale'), [[2, '[3] ✓ 3 (stale)']]);
  });

  it('follows lines inserted above', () => {
    const { inline, shown, doc } = setup();
    inline.onExecutionState(state('b', 4, 5, 'done', execution({ status: 'interrupted' }), doc.uri.toString()));
    mock.typeText(doc, new Position(0, 0), 'import os\n');
    assert.deepEqual(shown('interrupted'), [[6, '[1] ■ interrupted']]);
  });

  it('marks results stale after a restart, clears them on request, and draws nothing when disabled', () => {
    const { inline, shown, doc } = setup();
    const uri = doc.uri.toString();
    inline.onExecutionState(state('a', 1, 2, 'done', execution({ result: { text: '2' } }), uri));
    inline.markStale(uri);
    assert.deepEqual(shown('stale'), [[2, '[1] ✓ 2 (stale)']]);
    inline.clear(uri);
    assert.deepEqual(shown('stale'), []);
    const off = setup(false);
    off.inline.onExecutionState(state('a', 1, 2, 'done', execution(), uri));
    assert.deepEqual(off.shown('ok'), []);
  });
});
