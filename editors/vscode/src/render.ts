// How a result reads: the one-line after-text, its colour class, the hover
// markdown and the traceback text. Pure, so every status is unit-tested.

import { backendLabel, formatDuration, type Execution, type ExecutionError } from './protocol';
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

/** The after-text shown at the end of the result's last line. */
export function inline(e: ResultEntry): Inline {
  const look = lookOf(e);
  const x = e.execution;
  if (e.phase !== 'done' || !x) {
    const last = lastLine(e.streamed);
    const text = e.phase === 'queued' ? '⋯ queued' : last ? `⋯ running · ${last}` : '⋯ running';
    return { look, text: oneLine(text) };
  }
  const count = x.executionCount > 0 ? `[${x.executionCount}] ` : '';
  let text: string;
  switch (x.status) {
    case 'ok':
      text = `✓ ${x.result ? x.result.text : lastLine(x.stdout) || formatDuration(x.durationMs)}`;
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
  return { look, text: oneLine(count + text + (e.stale ? ' (stale)' : '')) };
}

/** "ZeroDivisionError: division by zero" */
export function errorLine(err: ExecutionError): string {
  return err.evalue ? `${err.ename}: ${err.evalue}` : err.ename;
}

/** A Python-style traceback with 1-based document lines. */
export function formatTraceback(err: ExecutionError): string {
  const out: string[] = [];
  if (err.traceback.length > 0) out.push('Traceback (most recent call last):');
  for (const f of err.traceback) {
    const where = f.line >= 0 ? `line ${f.line + 1}` : f.file ? `File "${f.file}", line ${f.fileLine ?? 0}` : 'outside this code';
    out.push(`  ${where}, in ${f.name || '<module>'}`);
    if (f.text) out.push(`    ${f.text.trim()}`);
  }
  out.push(errorLine(err));
  return out.join('\n');
}

/** The hover: status, then stdout, stderr, the value and the traceback in full (each section bounded). */
export function hoverMarkdown(e: ResultEntry): string {
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
  if (x.result) parts.push(`Out${count ? count.trim() : ''}:`, fenced(x.result.text));
  if (x.error) parts.push(fenced(formatTraceback(x.error)));
  for (const n of x.notes ?? []) parts.push(`*${noteLine(n)}*`);
  return parts.join('\n\n');
}

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
  return `${count}${where} ${what} · ${formatDuration(x.durationMs)} · ${backendLabel(x.backend, x.runtime)}`;
}
