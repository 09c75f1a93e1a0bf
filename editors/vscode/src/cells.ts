// Percent-format cells ("# %%" and friends; none inside a string literal),
// parsed the way the server's cells package does, for the editor-side parts:
// where the cursor goes on run-and-advance and whether a file has cells at
// all. Lines are 0-based.

export type CellKind = 'code' | 'markdown' | 'raw';

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
    return percentKind(trimSpace(after));
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

/**
 * The kind of a "# %%" cell from the text after "%%", read as Jupytext reads
 * it: a type tag anywhere in the title (before the metadata) makes it
 * markdown or raw; a code cell inactive in notebooks (active="py") is raw.
 */
function percentKind(t: string): CellKind {
  let title = t;
  let meta = '';
  const curly = t.indexOf('{');
  const eq = t.indexOf('=');
  if (curly >= 0 && (eq < 0 || curly < eq)) {
    title = trimSpace(t.slice(0, curly));
    meta = t.slice(curly);
  } else {
    let words = eq >= 0 ? t.slice(0, eq).split(' ') : t.split(' ');
    if (eq >= 0) {
      while (words.length > 0 && words[words.length - 1] === '') words.pop();
      words.pop(); // the key
    }
    while (words.length > 0 && (words[words.length - 1]!.trim() === '' || words[words.length - 1]!.startsWith('.'))) words.pop();
    title = words.join(' ');
    meta = t.slice(title.length);
  }
  for (const [tag, kind] of [['[markdown]', 'markdown'], ['[raw]', 'raw'], ['[md]', 'markdown']] as const) {
    if (title.includes(tag)) return kind;
  }
  const active = /(?:^|[\s,{])"?active"?\s*[=:]\s*"([^"]*)"/.exec(meta);
  return active && !active[1]!.split(/[.,]/).includes('ipynb') ? 'raw' : 'code';
}

// Python's strings, found as the server's tokenizer (pysrc.TokenizeLenient)
// finds them: every prefix, f- and t-string fields (Python 3.12, nested
// quotes allowed), comments, backslashes; a string left open ends at its
// line break. Only where strings start and end matters here, so names,
// numbers and operators are skipped, not classified. One difference: every
// non-ASCII character counts as a letter, so `€f"{…}"` (a syntax error) is
// read as no f-string.

const BS = 0x5c;
const SQ = 0x27;
const DQ = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const MAX_NEST = 200; // as pysrc's maxNest
const PREFIXES = new Set(['r', 'u', 'b', 'f', 't', 'br', 'rb', 'fr', 'rf', 'tr', 'rt']);

const isNewline = (c: number): boolean => c === LF || c === CR;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHexDigit = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
const isIdentStart = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c >= 0x80;
const isNameByte = (c: number): boolean => c === 0x20 || c === 0x2d || isDigit(c) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
const nlLen = (s: string, i: number): number => (s.charCodeAt(i) === CR && s.charCodeAt(i + 1) === LF ? 2 : 1);

function lineBreak(s: string, i: number): number {
  while (i < s.length && !isNewline(s.charCodeAt(i))) i++;
  return i;
}

function identEnd(s: string, i: number): number {
  if (!isIdentStart(s.charCodeAt(i))) return i;
  let j = i + 1;
  while (j < s.length && (isIdentStart(s.charCodeAt(j)) || isDigit(s.charCodeAt(j)))) j++;
  return j;
}

function digitsEnd(s: string, j: number): number {
  while (j < s.length && (isDigit(s.charCodeAt(j)) || s.charCodeAt(j) === 0x5f)) j++;
  return j;
}

/** The end of the number at i (lenient, as pysrc's). */
function numberEnd(s: string, i: number): number {
  if (s.charCodeAt(i) === 0x30 && 'xXoObB'.includes(s.charAt(i + 1))) {
    let j = i + 2;
    while (j < s.length && (isHexDigit(s.charCodeAt(j)) || s.charCodeAt(j) === 0x5f)) j++;
    return j;
  }
  let j = digitsEnd(s, i);
  if (s.charCodeAt(j) === 0x2e) j = digitsEnd(s, j + 1);
  if (s.charAt(j) === 'e' || s.charAt(j) === 'E') {
    let k = j + 1;
    if (s.charAt(k) === '+' || s.charAt(k) === '-') k++;
    if (isDigit(s.charCodeAt(k))) j = digitsEnd(s, k);
  }
  if (s.charAt(j) === 'j' || s.charAt(j) === 'J') j++;
  return j;
}

/** The prefixed string whose prefix is s[i, q): its end (-1 when not closed), or undefined when s[i, q) is no prefix. */
function prefixed(s: string, i: number, q: number, nest: number): number | undefined {
  const p = s.slice(i, q).toLowerCase();
  if (!PREFIXES.has(p)) return undefined;
  return str(s, q, p.includes('r'), p.includes('f') || p.includes('t'), nest);
}

/** Scans the string whose quote is at i; the index after its closing quote, or -1 when it is not closed. */
function str(s: string, i: number, raw: boolean, tmpl: boolean, nest: number): number {
  const q = s.charCodeAt(i);
  const triple = s.charCodeAt(i + 1) === q && s.charCodeAt(i + 2) === q;
  let j = triple ? i + 3 : i + 1;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c === BS) {
      j++;
      if (j >= s.length) break;
      const d = s.charCodeAt(j);
      if (tmpl && (d === LBRACE || d === RBRACE)) continue; // a backslash never escapes a field's brace
      if (tmpl && !raw && d === 0x4e && s.charCodeAt(j + 1) === LBRACE) {
        // \N{NAME}
        let k = j + 2;
        while (k < s.length && isNameByte(s.charCodeAt(k))) k++;
        j = s.charCodeAt(k) === RBRACE ? k + 1 : j + 1;
      } else {
        j += isNewline(d) ? nlLen(s, j) : 1;
      }
    } else if (c === q) {
      if (!triple) return j + 1;
      if (s.charCodeAt(j + 1) === q && s.charCodeAt(j + 2) === q) return j + 3;
      j++;
    } else if (isNewline(c)) {
      if (!triple) return -1;
      j++;
    } else if (tmpl && c === LBRACE) {
      if (s.charCodeAt(j + 1) === LBRACE) j += 2;
      else if ((j = field(s, j + 1, triple, nest + 1)) < 0) return -1;
    } else {
      j++;
    }
  }
  return -1;
}

/** Scans a replacement field's expression from j (after its "{"); the index after its "}", or -1. */
function field(s: string, j: number, triple: boolean, nest: number): number {
  if (nest > MAX_NEST) return -1;
  let depth = 0;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c === SQ || c === DQ) {
      if ((j = str(s, j, false, false, nest)) < 0) return -1;
    } else if (c === 0x23) {
      j = lineBreak(s, j);
    } else if (c === BS) {
      j++;
      if (isNewline(s.charCodeAt(j))) j += nlLen(s, j);
    } else if (c === 0x28 || c === 0x5b || c === LBRACE) {
      depth++;
      j++;
    } else if (c === 0x29 || c === 0x5d) {
      if (depth > 0) depth--;
      j++;
    } else if (c === RBRACE) {
      if (depth === 0) return j + 1;
      depth--;
      j++;
    } else if (c === 0x3a && depth === 0) {
      return spec(s, j + 1, triple, nest);
    } else {
      const e = identEnd(s, j);
      const q = s.charCodeAt(e);
      const after = e > j && (q === SQ || q === DQ) ? prefixed(s, j, e, nest) : undefined;
      if (after !== undefined && after < 0) return -1;
      j = after ?? (e > j ? e : j + 1);
    }
  }
  return -1;
}

/** Scans a format spec up to the "}" closing its field. */
function spec(s: string, j: number, triple: boolean, nest: number): number {
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c === RBRACE) return j + 1;
    if (c === LBRACE) {
      if ((j = field(s, j + 1, triple, nest + 1)) < 0) return -1;
    } else if (isNewline(c) && !triple) {
      return -1;
    } else {
      j++;
    }
  }
  return -1;
}

/** The spans [start, end) of the string literals of s, and the index of its first code (not blank or comment), or s.length. */
function readStrings(s: string): { spans: [number, number][]; firstCode: number } {
  const spans: [number, number][] = [];
  let firstCode = -1;
  const literal = (start: number, q: number, end: number): number => {
    if (end < 0) end = lineBreak(s, q); // not closed: it ends at its line break
    spans.push([start, end]);
    return end;
  };
  let i = s.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (isSpace(s.charAt(i)) || c === LF) {
      i++;
    } else if (c === 0x23) {
      i = lineBreak(s, i);
    } else if (c === BS && (isNewline(s.charCodeAt(i + 1)) || i + 1 === s.length)) {
      i += 2; // a line continuation (a "\r\n" after it is skipped as blank)
    } else {
      if (firstCode < 0) firstCode = i;
      const e = identEnd(s, i);
      const q = s.charCodeAt(e);
      if (c === SQ || c === DQ) {
        i = literal(i, i, str(s, i, false, false, 0));
      } else if (isDigit(c) || (c === 0x2e && isDigit(s.charCodeAt(i + 1)))) {
        i = numberEnd(s, i);
      } else if (e > i) {
        const after = q === SQ || q === DQ ? prefixed(s, i, e, 0) : undefined;
        i = after === undefined ? e : literal(i, e, after);
      } else {
        i += s.startsWith('...', i) ? 3 : 1;
      }
    }
  }
  return { spans, firstCode: firstCode < 0 ? s.length : firstCode };
}

/**
 * Splits lines into cells. A line starting inside a string literal is no
 * marker; text above the first marker is a cell when it holds code (not only
 * comments and blank lines); a file without markers is one cell.
 */
export function parseCells(lines: readonly string[]): Cell[] {
  if (lines.length === 0 || (lines.length === 1 && lines[0] === '')) return [];
  const { spans, firstCode } = readStrings(lines.join('\n'));
  const headers: { line: number; kind: CellKind; at: number }[] = [];
  let at = 0; // index of line i in the text
  let next = 0; // the first span that may hold it
  lines.forEach((l, i) => {
    while (next < spans.length && spans[next]![1] <= at) next++;
    const inString = next < spans.length && spans[next]![0] < at;
    const kind = inString ? undefined : markerKind(l);
    if (kind) headers.push({ line: i, kind, at });
    at += l.length + 1;
  });
  const cells: Cell[] = [];
  const first = headers.length > 0 ? headers[0]!.line : lines.length;
  if (headers.length === 0 || firstCode < headers[0]!.at) {
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
  return lines.some((l) => markerKind(l) !== undefined) && parseCells(lines).some((c) => c.headerLine >= 0);
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
