// How a result reads: the one-line after-text, its colour class, the hover
// markdown and the traceback text. Pure, so every status is unit-tested.

import { backendLabel, formatDuration, isPayload, type Execution, type ExecutionError, type FileChange, type FileState, type Frame } from './protocol';
import { richSummary } from './displays';
import type { ResultEntry } from './results';

/** The colour class of an inline result. timeout and crashed read as errors. */
export type Look = 'ok' | 'error' | 'interrupted' | 'running' | 'stale';
export const looks: readonly Look[] = ['ok', 'error', 'interrupted', 'running', 'stale'];

export interface Inline {
  look: Look;
  text: string;
}

const maxInline = 120;
const maxSection = 4000;

export function lookOf(e: ResultEntry): Look {
  if (e.phase !== 'done' || !e.execution) return 'running';
  if (e.stale) return 'stale';
  switch (e.execution.status) {
    case 'ok':
      return 'ok';
    case 'interrupted':
      return 'interrupted';
    default:
      return 'error';
  }
}

const marks: Record<FileState, string> = { created: '+', changed: '~', deleted: '-' };

/** The sign of a file change: + created, ~ changed, - deleted. */
export function fileMark(s: FileState): string {
  return marks[s] ?? '~';
}

/** p relative to folder dir when it lies below it (either separator), else p. */
export function relativePath(dir: string | undefined, p: string): string {
  if (!dir) return p;
  const sep = p.includes('\\') && !p.includes('/') ? '\\' : '/';
  const base = dir.endsWith(sep) ? dir : dir + sep;
  if (p.startsWith(base)) return p.slice(base.length);
  const parent = base.slice(0, base.slice(0, -1).lastIndexOf(sep) + 1);
  return parent && p.startsWith(parent) ? `..${sep}${p.slice(parent.length)}` : p;
}

/** "+ out.csv ~ data.csv - old.txt": the files a run changed, relative to dir. */
export function fileChanges(files: readonly FileChange[] | undefined, dir?: string): string {
  return (files ?? []).map((f) => `${fileMark(f.state)} ${relativePath(dir, f.path)}`).join(' ');
}

/** "+1 ~2": the files a run changed, counted by sign. */
export function fileCounts(files: readonly FileChange[] | undefined): string {
  const n: Record<FileState, number> = { created: 0, changed: 0, deleted: 0 };
  for (const f of files ?? []) n[f.state] = (n[f.state] ?? 0) + 1;
  return (Object.keys(marks) as FileState[])
    .filter((k) => n[k] > 0)
    .map((k) => `${marks[k]}${n[k]}`)
    .join(' ');
}

/** The after-text shown at the end of the result's last line; dir is the document's folder. */
export function inline(e: ResultEntry, dir?: string): Inline {
  const look = lookOf(e);
  const x = e.execution;
  if (e.phase !== 'done' || !x) {
    const last = lastLine(e.streamed);
    const text = e.phase === 'queued' ? '⋯ queued' : last ? `⋯ running · ${last}` : '⋯ running';
    return { look, text: oneLine(text) };
  }
  const count = x.executionCount > 0 ? `[${x.executionCount}] ` : '';
  let text: string;
  // The MIME types of the rich outputs, which the displays view renders.
  const rich = richSummary(x);
  switch (x.status) {
    case 'ok':
      text = `✓ ${x.result ? x.result.text : lastLine(x.stdout) || rich || formatDuration(x.durationMs)}`;
      break;
    case 'interrupted':
      text = '■ interrupted';
      break;
    case 'timeout':
      text = `⏱ ${x.error ? errorLine(x.error) : 'timed out'}`;
      break;
    case 'crashed':
      text = `✗ kernel crashed${x.error?.evalue ? `: ${x.error.evalue}` : ''}`;
      break;
    default:
      text = `✗ ${x.error ? errorLine(x.error) : 'error'}`;
  }
  // The rich outputs and the changed files go first, so that a long value cannot cut them off.
  const shown = rich && !text.endsWith(rich) ? ` · ${rich}` : '';
  const tail = shown + (x.files?.length ? ` · ${fileChanges(x.files, dir)}` : '');
  const line = oneLine(count + text);
  return { look, text: oneLine(tail ? `${line.slice(0, Math.max(20, maxInline - tail.length))}${tail}` : line) + (e.stale ? ' (stale)' : '') };
}

/** "ZeroDivisionError: division by zero" */
export function errorLine(err: ExecutionError): string {
  return err.evalue ? `${err.ename}: ${err.evalue}` : err.ename;
}

/** A Python-style traceback with 1-based document lines: the whole exception (chain, notes, group members), as CPython prints it. */
export function formatTraceback(err: ExecutionError): string {
  return traceback(err, (f) => {
    const where = f.line >= 0 ? `line ${f.line + 1}` : f.file ? `File "${f.file}", line ${f.fileLine ?? 0}` : 'outside this code';
    return `  ${where}, in ${f.name || '<module>'}\n${f.text ? `    ${f.text.trim()}\n` : ''}`;
  }).replace(/\n$/, '');
}

const causeMessage = '\nThe above exception was the direct cause of the following exception:\n\n';
const contextMessage = '\nDuring handling of the above exception, another exception occurred:\n\n';
const maxGroupDepth = 10;

/**
 * err as CPython's traceback module prints it, and IPython, which prints
 * exception groups through it: the chain first (each cause or context, then
 * the line that says which), each exception's frames under "Traceback (most
 * recent call last):", its "ENAME: message" line and its notes; a group's
 * members boxed as CPython boxes them. frame writes one frame's lines, each
 * ending in "\n". (The server's notebook.Traceback; both are tested against
 * notebook/testdata/tracebacks.json.)
 */
export function traceback(err: ExecutionError, frame: (f: Frame) => string): string {
  let out = '';
  let depth = 0;
  let close = false;
  const indent = (): string => ' '.repeat(2 * depth);
  const emit = (text: string, margin = '|'): void => {
    const prefix = indent() + (depth > 0 ? `${margin} ` : '');
    for (const l of text.split(/(?<=\n)/)) if (l !== '') out += prefix + l;
  };
  const frames = (e: ExecutionError): string => (e.traceback ?? []).map(frame).join('');
  const format = (e: ExecutionError): void => {
    const chain: { msg: string; e: ExecutionError }[] = [];
    for (let x: ExecutionError | undefined = e; x; ) {
      const next: ExecutionError | undefined = x.cause ?? x.context;
      chain.push({ msg: x.cause ? causeMessage : x.context ? contextMessage : '', e: x });
      x = next;
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const { msg, e: x } = chain[i]!;
      if (msg) emit(msg);
      if (!x.exceptions?.length && !x.moreExceptions) {
        if (x.traceback?.length) {
          emit('Traceback (most recent call last):\n');
          emit(frames(x));
        }
        emit(exceptionOnly(x));
      } else if (depth > maxGroupDepth) {
        emit(`... (max_group_depth is ${maxGroupDepth})\n`);
      } else {
        group(x);
      }
    }
  };
  const group = (x: ExecutionError): void => {
    const top = depth === 0;
    if (top) depth++;
    if (x.traceback?.length) {
      emit('Exception Group Traceback (most recent call last):\n', top ? '+' : '|');
      emit(frames(x));
    }
    emit(exceptionOnly(x));
    const members = x.exceptions ?? [];
    const more = x.moreExceptions ?? 0;
    const shown = members.length + (more > 0 ? 1 : 0);
    close = false;
    for (let i = 0; i < shown; i++) {
      const last = i === shown - 1;
      if (last) close = true;
      out += `${indent()}${i === 0 ? '+-' : '  '}+---------------- ${i < members.length ? i + 1 : '...'} ----------------\n`;
      depth++;
      if (i < members.length) format(members[i]!);
      else emit(`and ${more} more exception${more === 1 ? '' : 's'}\n`);
      if (last && close) {
        out += `${indent()}+------------------------------------\n`;
        close = false;
      }
      depth--;
    }
    if (top) depth = 0;
  };
  format(err);
  return out;
}

/** An exception's own lines: "ENAME: message" (the name alone for no message), then its notes. */
export function exceptionOnly(e: ExecutionError): string {
  return `${e.evalue ? `${e.ename}: ${e.evalue}` : e.ename}\n${(e.notes ?? []).map((n) => `${n}\n`).join('')}`;
}

/** The hover: status, then stdout, stderr, the display outputs, the value, the traceback in full (each section bounded) and the files the run changed. */
export function hoverMarkdown(e: ResultEntry, dir?: string): string {
  const x = e.execution;
  if (e.phase !== 'done' || !x) {
    const head = e.phase === 'queued' ? '**backyard** · queued' : '**backyard** · running…';
    return e.streamed ? `${head}\n\n${fenced(e.streamed)}` : head;
  }
  const count = x.executionCount > 0 ? `[${x.executionCount}] ` : '';
  const parts = [`**${count}${x.status}** · ${backendLabel(x.backend, x.runtime)} · ${formatDuration(x.durationMs)}`];
  if (e.stale) parts[0] += ' · *stale: the code changed since it ran*';
  if (x.stdout) parts.push(fenced(x.stdout));
  if (x.stderr) parts.push('stderr:', fenced(x.stderr));
  for (const d of (x.displays ?? []).filter((d) => !isPayload(d))) {
    // A display's Markdown renders here; its text/plain is shown, its other forms named.
    const others = Object.keys(d.data).filter((m) => m !== 'text/plain' && m !== 'text/markdown').sort();
    if (d.data['text/markdown'] !== undefined) parts.push(bound(d.data['text/markdown']));
    else if (d.data['text/plain'] !== undefined) parts.push(fenced(d.data['text/plain']));
    if (others.length) parts.push(`*display: ${others.join(', ')}*`);
  }
  if (richSummary(x)) {
    const args = encodeURIComponent(JSON.stringify([e.executionId]));
    parts.push(`[Show ${richSummary(x)} in the displays view](command:${showDisplaysCommand}?${args})`);
  }
  if (x.result) parts.push(`Out${count ? count.trim() : ''}:`, fenced(x.result.text));
  if (x.error) parts.push(fenced(formatTraceback(x.error)));
  for (const n of x.notes ?? []) parts.push(`*${noteLine(n)}*`);
  if (x.files?.length) {
    parts.push('files (kept in the kernel until you save them: *backyard: Save Kernel Files…*):', fenced(x.files.map((f) => `${fileMark(f.state)} ${relativePath(dir, f.path)}`).join('\n')));
  }
  return parts.join('\n\n');
}

/** The editor command that renders a run's rich outputs; the hover links to it. */
export const showDisplaysCommand = 'backyard.editor.showDisplays';

/** A note of the server about a run ("the namespace was restored…"), as one line. */
export function noteLine(note: string): string {
  return `note: ${note}`;
}

/** A code block whose fence is longer than any backtick run inside. */
export function fenced(text: string): string {
  const body = bound(text.replace(/\n$/, ''));
  const longest = Math.max(0, ...Array.from(body.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${body}\n${fence}`;
}

function bound(s: string): string {
  return s.length > maxSection ? `${s.slice(0, maxSection)}\n… (${s.length - maxSection} more characters in the backyard output)` : s;
}

function lastLine(s: string): string {
  const lines = s.split('\n').filter((l) => l.trim() !== '');
  return lines.length > 0 ? lines[lines.length - 1]! : '';
}

function oneLine(s: string): string {
  const nl = s.indexOf('\n');
  let t = nl >= 0 ? `${s.slice(0, nl)} …` : s;
  t = t.replace(/\s+$/, '');
  return t.length > maxInline ? `${t.slice(0, maxInline - 1)}…` : t;
}

/** The summary line written to the output channel when an execution ends. */
export function summaryLine(x: Execution, where: string): string {
  const count = x.executionCount > 0 ? `[${x.executionCount}] ` : '';
  const what = x.status === 'ok' ? 'ok' : x.error ? `${x.status}: ${errorLine(x.error)}` : x.status;
  const files = x.files?.length ? ` · files ${fileChanges(x.files)}` : '';
  return `${count}${where} ${what} · ${formatDuration(x.durationMs)} · ${backendLabel(x.backend, x.runtime)}${files}`;
}
