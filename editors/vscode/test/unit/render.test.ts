import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionError, Frame } from '../../src/protocol';
import { fenced, fileChanges, fileCounts, formatTraceback, hoverMarkdown, inline, relativePath, summaryLine, traceback } from '../../src/render';
import { DocumentResults } from '../../src/results';
import type { Execution } from '../../src/protocol';
import { execution, state } from './fixtures';

function entry(x: Execution | undefined, phase: 'queued' | 'running' | 'done' = 'done', stale = false) {
  const r = new DocumentResults();
  r.onExecutionState(state('a', 1, 2, 'queued'));
  if (phase !== 'queued') r.onExecutionState(state('a', 1, 2, 'running'));
  if (phase === 'done') r.onExecutionState(state('a', 1, 2, 'done', x));
  const e = r.get('a')!;
  e.stale = stale;
  return e;
}

const zde: Execution['error'] = {
  ename: 'ZeroDivisionError',
  evalue: 'division by zero',
  traceback: [
    { line: 4, name: '<module>', text: 'f(0)' },
    { line: 2, name: 'f', text: '    return 1 / n' },
  ],
};

describe('inline after-text and colour per status', () => {
  const cases: [string, Execution | undefined, 'queued' | 'running' | 'done', boolean, string, string][] = [
    ['value', execution({ executionCount: 3, result: { text: '42' } }), 'done', false, 'ok', '[3] ✓ 42'],
    ['last stdout line', execution({ stdout: 'a\nb\n' }), 'done', false, 'ok', '[1] ✓ b'],
    ['duration when silent', execution({ durationMs: 0.25 }), 'done', false, 'ok', '[1] ✓ 0.25 ms'],
    ['error', execution({ status: 'error', executionCount: 4, error: zde }), 'done', false, 'error', '[4] ✗ ZeroDivisionError: division by zero'],
    ['timeout', execution({ status: 'timeout' }), 'done', false, 'error', '[1] ⏱ timed out'],
    ['crashed', execution({ status: 'crashed', executionCount: 0, error: { ename: 'KernelError', evalue: 'worker died', traceback: [] } }), 'done', false, 'error', '✗ kernel crashed: worker died'],
    ['interrupted', execution({ status: 'interrupted', executionCount: 2 }), 'done', false, 'interrupted', '[2] ■ interrupted'],
    ['stale', execution({ result: { text: '42' } }), 'done', true, 'stale', '[1] ✓ 42 (stale)'],
    ['rich value', execution({ result: { text: '<HTML>', mime: { 'text/plain': '<HTML>', 'text/html': '<b>x</b>' } } }), 'done', false, 'ok', '[1] ✓ <HTML> · [text/html]'],
    ['a figure shown', execution({ displays: [{ data: { 'text/plain': '<Figure>', 'image/png': 'iVBO' } }] }), 'done', false, 'ok', '[1] ✓ [image/png]'],
    ['displays and stdout', execution({ stdout: 'hi\n', displays: [{ data: { 'text/plain': '<SVG>', 'image/svg+xml': '<svg/>' } }, { data: { 'text/plain': '1' } }] }), 'done', false, 'ok', '[1] ✓ hi · [image/svg+xml]'],
    ['queued', undefined, 'queued', false, 'running', '⋯ queued'],
    ['running', undefined, 'running', false, 'running', '⋯ running'],
  ];
  for (const [name, x, phase, stale, look, text] of cases) {
    it(name, () => assert.deepEqual(inline(entry(x, phase, stale)), { look, text }));
  }
  it('shows the last streamed line while running, and cuts long or multi-line values', () => {
    const e = entry(undefined, 'running');
    e.streamed = 'step 1\nstep 2\n';
    assert.equal(inline(e).text, '⋯ running · step 2');
    assert.equal(inline(entry(execution({ result: { text: 'line1\nline2' } }))).text, '[1] ✓ line1 …');
    assert.ok(inline(entry(execution({ result: { text: 'x'.repeat(500) } }))).text.length <= 120);
  });
});

describe('hover markdown', () => {
  it('holds stdout, stderr, the value and the traceback with 1-based lines', () => {
    const md = hoverMarkdown(entry(execution({ status: 'error', executionCount: 5, stdout: 'out\n', stderr: 'warn\n', error: zde, runtime: 'runsc', backend: 'container' })));
    assert.match(md, /^\*\*\[5\] error\*\* · container · runsc · 1\.3 ms/);
    assert.match(md, /```text\nout\n```/);
    assert.match(md, /stderr:\n\n```text\nwarn\n```/);
    assert.match(md, /line 5, in <module>\n {4}f\(0\)\n {2}line 3, in f\n {4}return 1 \/ n\nZeroDivisionError: division by zero/);
  });
  it('labels the value and says when it is stale', () => {
    const md = hoverMarkdown(entry(execution({ executionCount: 2, result: { text: "'ok'" } }), 'done', true));
    assert.match(md, /stale/);
    assert.match(md, /Out\[2\]:\n\n```text\n'ok'\n```/);
  });
  it('shows display outputs: Markdown rendered, text/plain fenced, other forms named', () => {
    const md = hoverMarkdown(
      entry(
        execution({
          displays: [{ data: { 'text/plain': '1' } }, { data: { 'text/plain': '<Markdown>', 'text/markdown': '**b**' } }, { data: { 'text/plain': '<HTML>', 'text/html': '<i>x</i>' } }],
        }),
      ),
    );
    assert.match(md, /```text\n1\n```\n\n\*\*b\*\*\n\n```text\n<HTML>\n```\n\n\*display: text\/html\*/);
    // A link opens the displays view on this run.
    assert.match(md, /\[Show \[text\/markdown, text\/html\] in the displays view\]\(command:backyard\.editor\.showDisplays\?%5B%22a%22%5D\)$/);
  });
  it('shows no payload (%load, %edit): a front end acts on it, it is no output', () => {
    const md = hoverMarkdown(
      entry(
        execution({
          stdout: 'before\n',
          displays: [
            { data: { 'text/plain': '# %load f.py\nx = 1' }, metadata: { payload: { source: 'set_next_input', replace: true } } },
            { data: { 'text/plain': '/w/f.py' }, metadata: { payload: { source: 'edit_magic', filename: '/w/f.py', line_number: null } } },
          ],
        }),
      ),
    );
    assert.doesNotMatch(md, /x = 1|f\.py|display/);
    assert.match(md, /```text\nbefore\n```$/);
  });
  it('uses a fence longer than any backtick run in the output', () => {
    assert.equal(fenced('a ```` b'), '`````text\na ```` b\n`````');
  });
  it('formats frames outside the code that ran', () => {
    assert.match(formatTraceback({ ename: 'E', evalue: '', traceback: [{ line: -1, name: 'g', text: '' }] }), /outside this code, in g\nE$/);
  });
  it('names the file and line of a library frame', () => {
    const tb = formatTraceback({ ename: 'FileNotFoundError', evalue: 'x', traceback: [{ line: 2, name: '<module>', text: 'p.read_text()' }, { line: -1, name: 'read_text', text: 'with self.open() as f:', file: '/usr/lib/python3.11/pathlib.py', fileLine: 1058 }] });
    assert.match(tb, /line 3, in <module>\n {4}p\.read_text\(\)\n {2}File "\/usr\/lib\/python3\.11\/pathlib\.py", line 1058, in read_text\n {4}with self\.open\(\) as f:\n/);
  });
  it('shows the notes of a run, one line each', () => {
    const md = hoverMarkdown(entry(execution({ status: 'interrupted', notes: ['the namespace was restored to its state before this cell: Monty cannot keep what a stopped cell did'] })));
    assert.match(md, /\*note: the namespace was restored to its state before this cell: Monty cannot keep what a stopped cell did\*$/);
  });
});

describe('files a run changed', () => {
  const files: Execution['files'] = [
    { path: '/home/ada/out/summary.csv', state: 'created' },
    { path: '/home/ada/sales.csv', state: 'changed' },
    { path: '/home/shared/old.txt', state: 'deleted' },
  ];
  it('are marked + ~ - relative to the document folder', () => {
    assert.equal(fileChanges(files, '/home/ada'), '+ out/summary.csv ~ sales.csv - ../shared/old.txt');
    assert.equal(relativePath('C:\\work', 'C:\\work\\a.csv'), 'a.csv');
    assert.equal(relativePath('/a/b', '/c/d.txt'), '/c/d.txt');
    assert.equal(fileCounts(files), '+1 ~1 -1');
    assert.equal(fileCounts([]), '');
  });
  it('show under the cell: in the after-text (never cut off by a long value), the hover and the log line', () => {
    const x = execution({ result: { text: 'x'.repeat(300) }, files });
    const t = inline(entry(x), '/home/ada').text;
    assert.ok(t.endsWith(' · + out/summary.csv ~ sales.csv - ../shared/old.txt'), t);
    assert.ok(t.length <= 120);
    const md = hoverMarkdown(entry(x), '/home/ada');
    assert.match(md, /files \(kept in the kernel until you save them/);
    assert.match(md, /\+ out\/summary\.csv\n~ sales\.csv\n- \.\.\/shared\/old\.txt/);
    assert.match(summaryLine(x, 'demo.py:2'), / · files \+ \/home\/ada\/out\/summary\.csv/);
    assert.doesNotMatch(hoverMarkdown(entry(execution())), /files/);
  });
});

describe('the shared tracebacks (notebook/testdata/tracebacks.json, from the server renderer)', () => {
  interface Vector {
    name: string;
    error: ExecutionError;
    text: string;
  }
  const vectors = JSON.parse(readFileSync(join('..', '..', 'notebook', 'testdata', 'tracebacks.json'), 'utf8')) as Vector[];
  const canonical = (f: Frame): string => `  line ${f.line + 1}, in ${f.name}\n    ${f.text}\n`;
  for (const v of vectors) {
    it(`lays out ${v.name} as CPython does`, () => {
      assert.equal(traceback(v.error, canonical), v.text);
    });
  }
  it('formatTraceback shows a chain, notes and a group', () => {
    const tb = formatTraceback(vectors.find((v) => v.name === 'cause')!.error);
    assert.match(tb, /ZeroDivisionError: division by zero\n\nThe above exception was the direct cause of the following exception:\n\nTraceback/);
    assert.match(formatTraceback(vectors.find((v) => v.name === 'nested groups with notes')!.error), / {6}\| TypeError: t\n {6}\| a note\n/);
  });
});
