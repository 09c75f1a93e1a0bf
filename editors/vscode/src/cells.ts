// Percent-format cells ("# %%" and friends), parsed the way the server's
// cells package does, for the editor-side parts: where the cursor goes on
// run-and-advance and whether a file has cells at all. Lines are 0-based.

export type CellKind = 'code' | 'markdown';

export interface Cell {
  kind: CellKind;
  /** Marker line, or -1 for the implicit cell above the first marker. */
  headerLine: number;
  /** First body line. */
  startLine: number;
  /** Exclusive end: the next marker's line, or the line count. */
  endLine: number;
}

const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\f' || c === '\v' || c === '\r';

function trimSpace(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isSpace(s[a]!)) a++;
  while (b > a && isSpace(s[b - 1]!)) b--;
  return s.slice(a, b);
}

/** The kind of cell a marker line opens, or undefined when the line is no marker. */
export function markerKind(line: string): CellKind | undefined {
  let s = line;
  while (s.length > 0 && isSpace(s[s.length - 1]!)) s = s.slice(0, -1);
  if (!s.startsWith('#')) return undefined;
  let rest = s.slice(1);
  while (rest.length > 0 && isSpace(rest[0]!)) rest = rest.slice(1);
  if (rest.startsWith('%%')) {
    const after = rest.slice(2);
    if (after !== '' && !isSpace(after[0]!)) return undefined; // "# %%%" is a comment
    return isMarkdownTitle(trimSpace(after)) ? 'markdown' : 'code';
  }
  if (rest.startsWith('In[')) return isInPrompt(rest.slice(3)) ? 'code' : undefined;
  if (rest === '<codecell>') return 'code';
  if (rest === '<markdowncell>') return 'markdown';
  return undefined;
}

function isInPrompt(s: string): boolean {
  const end = s.indexOf(']');
  if (end < 0) return false;
  const tail = s.slice(end + 1);
  if (tail !== '' && tail !== ':') return false;
  return /^ *[0-9]* *$/.test(s.slice(0, end));
}

function isMarkdownTitle(t: string): boolean {
  for (const tag of ['[markdown]', '[md]']) {
    if (t === tag) return true;
    if (t.startsWith(tag) && isSpace(t[tag.length]!)) return true;
    if (t.endsWith(tag) && isSpace(t[t.length - tag.length - 1]!)) return true;
  }
  return false;
}

/** Splits lines into cells; text above the first marker is a cell when it is not blank; a file without markers is one cell. */
export function parseCells(lines: readonly string[]): Cell[] {
  if (lines.length === 0 || (lines.length === 1 && lines[0] === '')) return [];
  const headers: { line: number; kind: CellKind }[] = [];
  lines.forEach((l, i) => {
    const kind = markerKind(l);
    if (kind) headers.push({ line: i, kind });
  });
  const cells: Cell[] = [];
  const first = headers.length > 0 ? headers[0]!.line : lines.length;
  if (headers.length === 0 || lines.slice(0, first).some((l) => trimSpace(l) !== '')) {
    cells.push({ kind: 'code', headerLine: -1, startLine: 0, endLine: first });
  }
  headers.forEach((h, i) => {
    const end = i + 1 < headers.length ? headers[i + 1]!.line : lines.length;
    cells.push({ kind: h.kind, headerLine: h.line, startLine: h.line + 1, endLine: end });
  });
  return cells;
}

/** Whether the text has at least one cell marker (Shift+Enter runs cells only then). */
export function hasMarkers(lines: readonly string[]): boolean {
  return lines.some((l) => markerKind(l) !== undefined);
}

const firstLine = (c: Cell): number => (c.headerLine >= 0 ? c.headerLine : c.startLine);

/** Index of the cell containing line (its header or body), or -1. */
export function cellIndexAt(cells: readonly Cell[], line: number): number {
  return cells.findIndex((c) => firstLine(c) <= line && line < c.endLine);
}

/** Where run-and-advance puts the cursor, and the text to append first when there is no next cell. */
export interface Advance {
  line: number;
  /** Appended at the end of the document before moving (a new "# %%" cell, as Jupyter does). */
  append?: string;
}

/**
 * After running the cell at line: the first body line of the next code cell,
 * or a new cell appended at the end when there is none (or when the next
 * cell is an empty marker on the last line, which has no body line yet).
 */
export function advanceFrom(lines: readonly string[], line: number): Advance {
  const cells = parseCells(lines);
  const at = cellIndexAt(cells, line);
  for (let i = at + 1; i < cells.length; i++) {
    const c = cells[i]!;
    if (c.kind !== 'code') continue;
    if (c.startLine < lines.length) return { line: c.startLine };
    return { line: lines.length, append: '\n' }; // marker on the last line: open its body
  }
  const last = lines[lines.length - 1] ?? '';
  const append = (last === '' ? '' : '\n') + '\n# %%\n';
  // After appending, the cursor sits on the empty line below the new marker.
  const newLineCount = lines.length + (append.match(/\n/g)?.length ?? 0);
  return { line: newLineCount - 1, append };
}
