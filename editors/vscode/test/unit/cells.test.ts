import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { advanceFrom, cellIndexAt, hasMarkers, markerKind, parseCells } from '../../src/cells';

const lines = (s: string): string[] => s.split('\n');

describe('markerKind', () => {
  it('knows the percent-format family', () => {
    assert.equal(markerKind('# %%'), 'code');
    assert.equal(markerKind('#%% Load data'), 'code');
    assert.equal(markerKind('# %% [markdown]'), 'markdown');
    assert.equal(markerKind('# %% Notes [md]'), 'markdown');
    assert.equal(markerKind('# In[ ]:'), 'code');
    assert.equal(markerKind('# In[12]'), 'code');
    assert.equal(markerKind('# <codecell>'), 'code');
    assert.equal(markerKind('# <markdowncell>'), 'markdown');
  });
  it('reads a "# %%" line as Jupytext does: raw cells, tags anywhere in the title, inactive cells', () => {
    assert.equal(markerKind('# %% [raw]'), 'raw');
    assert.equal(markerKind('# %% Notes [raw] k="v"'), 'raw');
    assert.equal(markerKind('# %% a [markdown] b'), 'markdown');
    assert.equal(markerKind('# %% t active="py"'), 'raw');
    assert.equal(markerKind('# %% {"active": "py,R"}'), 'raw');
    assert.equal(markerKind('# %% active="ipynb,py"'), 'code');
    assert.equal(markerKind('# %% t x="[raw]"'), 'code');
    assert.equal(markerKind('# %% [RAW]'), 'code');
  });
  it('rejects comments that only look similar', () => {
    for (const l of ['# %%%', '# %%x', '  # %%', 'x = 1  # %%', '# In[a]', '# In[1]x', '']) assert.equal(markerKind(l), undefined, l);
  });
});

describe('parseCells', () => {
  it('makes an implicit first cell of code above the first marker', () => {
    const c = parseCells(lines('import x\n# %%\na = 1\n# %% [markdown]\n# text\n# %%\nb'));
    assert.deepEqual(
      c.map((x) => [x.kind, x.headerLine, x.startLine, x.endLine]),
      [
        ['code', -1, 0, 1],
        ['code', 1, 2, 3],
        ['markdown', 3, 4, 5],
        ['code', 5, 6, 7],
      ],
    );
    assert.equal(cellIndexAt(c, 1), 1);
    assert.equal(cellIndexAt(c, 6), 3);
  });
  it('has no implicit cell above the first marker when that text is blank; a file without markers is one cell', () => {
    assert.equal(parseCells(lines('\n# %%\na')).length, 1);
    assert.deepEqual(parseCells(lines('a = 1\nb = 2')), [{ kind: 'code', headerLine: -1, startLine: 0, endLine: 2 }]);
    assert.equal(hasMarkers(lines('a = 1\nb = 2')), false);
    assert.equal(hasMarkers(lines('a = 1\n# %%\nb = 2')), true);
  });
});

describe('advanceFrom', () => {
  const doc = lines('# %%\na = 1\n\n# %% [markdown]\n# notes\n# %%\nb = 2\n');
  it('moves to the first body line of the next code cell, skipping markdown', () => {
    assert.deepEqual(advanceFrom(doc, 1), { line: 6 });
    assert.deepEqual(advanceFrom(doc, 0), { line: 6 });
  });
  it('appends a new cell at the end after the last cell (document ending in a newline)', () => {
    const a = advanceFrom(doc, 6);
    assert.equal(a.append, '\n# %%\n');
    const after = (doc.join('\n') + a.append).split('\n');
    assert.equal(after[a.line - 1], '# %%');
    assert.equal(after[a.line], '');
    assert.equal(a.line, after.length - 1);
  });
  it('appends a blank line first when the last line has text', () => {
    const d = lines('# %%\nx = 1');
    const a = advanceFrom(d, 1);
    assert.equal(a.append, '\n\n# %%\n');
    const after = (d.join('\n') + a.append).split('\n');
    assert.deepEqual(after, ['# %%', 'x = 1', '', '# %%', '']);
    assert.equal(a.line, 4);
  });
  it('opens the body of a next cell whose marker is the last line', () => {
    const d = lines('# %%\nx = 1\n# %%');
    assert.deepEqual(advanceFrom(d, 1), { line: 3, append: '\n' });
  });
});

describe('the shared vectors (cells/testdata/vectors.json, from the server parser)', () => {
  interface Vector {
    text: string;
    cells: { kind: string; header: number; start: number; stop: number }[];
  }
  const vectors = JSON.parse(readFileSync(join('..', '..', 'cells', 'testdata', 'vectors.json'), 'utf8')) as Vector[];
  it('parseCells finds the cells the server finds in every one', () => {
    assert.ok(vectors.length > 300, `only ${vectors.length} vectors`);
    const bad = vectors.filter((v) => {
      const got = parseCells(lines(v.text)).map((c) => ({ kind: c.kind, header: c.headerLine, start: c.startLine, stop: c.endLine }));
      return JSON.stringify(got) !== JSON.stringify(v.cells);
    });
    assert.equal(bad.length, 0, `${bad.length} of ${vectors.length} differ, first: ${JSON.stringify(bad[0])}`);
  });
});

describe('strings and headers', () => {
  it('finds no marker inside a string literal, whatever its prefix', () => {
    const c = parseCells(lines('# %%\ns = """\n# %%\n"""\nt = rb\'\'\'\n# %% [md]\n\'\'\'\n# %%\ny'));
    assert.deepEqual(
      c.map((x) => [x.kind, x.headerLine, x.startLine, x.endLine]),
      [
        ['code', 0, 1, 7],
        ['code', 7, 8, 9],
      ],
    );
    assert.equal(hasMarkers(lines('s = """\n# %%\n"""')), false);
  });
  it('lets a string left open hide nothing', () => {
    assert.equal(parseCells(lines('# %%\ns = """\n# %%\nx = 1')).length, 2);
  });
  it('makes no cell of a header of comments (nbconvert), but one of code', () => {
    assert.deepEqual(parseCells(lines('#!/usr/bin/env python\n# coding: utf-8\n\n# In[1]:\nx')), [
      { kind: 'code', headerLine: 3, startLine: 4, endLine: 5 },
    ]);
    assert.deepEqual(parseCells(lines('"""Doc."""\n# %%\nx'))[0], { kind: 'code', headerLine: -1, startLine: 0, endLine: 1 });
  });
  it('advances past a marker inside a string', () => {
    assert.deepEqual(advanceFrom(lines("# %%\ns = '''\n# %%\n'''\n# %%\ny"), 1), { line: 5 });
  });
});
