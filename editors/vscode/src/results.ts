// The inline results of one document: which execution's outcome belongs to
// which lines, kept in step with edits (lines shift; an edit inside a
// result's lines makes it stale) and replaced when the same lines run again.
// Pure: fed by backyard/executionState, backyard/output and text changes.

import type { Display, Execution, ExecutionStateParams, Range, Stream } from './protocol';

export type Phase = 'queued' | 'running' | 'done';

export interface ResultEntry {
  executionId: string;
  /** First and last document line of the code that ran (the result shows after lastLine). */
  startLine: number;
  lastLine: number;
  phase: Phase;
  execution?: Execution;
  /** Output streamed so far (stdout and stderr interleaved), while running. */
  streamed: string;
  stale: boolean;
  /** The lines were edited while the execution was queued or running: its result is stale on arrival. */
  edited: boolean;
  /** Results hidden while this one is queued or running; shown again if it is dropped. */
  replaced: ResultEntry[];
}

/** A text change as LSP and VS Code report it: a range and its new text. */
export interface TextChange {
  range: Range;
  text: string;
}

/** Streamed text kept per running execution, for the hover and the running marker. */
export const maxStreamed = 64 * 1024;

export class DocumentResults {
  private entries: ResultEntry[] = [];

  all(): readonly ResultEntry[] {
    return this.entries;
  }

  get(executionId: string): ResultEntry | undefined {
    return this.entries.find((e) => e.executionId === executionId);
  }

  /** Applies a backyard/executionState notification; returns whether anything visible changed. */
  onExecutionState(p: ExecutionStateParams): boolean {
    const existing = this.get(p.executionId);
    switch (p.state) {
      case 'queued': {
        if (existing) return false;
        const startLine = p.range.start.line;
        const lastLine = Math.max(startLine, p.range.end.line);
        const replaced = this.entries.filter((e) => overlaps(e, startLine, lastLine));
        this.entries = this.entries.filter((e) => !replaced.includes(e));
        this.entries.push({ executionId: p.executionId, startLine, lastLine, phase: 'queued', streamed: '', stale: false, edited: false, replaced });
        return true;
      }
      case 'running':
        if (!existing) return false;
        existing.phase = 'running';
        return true;
      case 'done': {
        if (!existing) {
          // A run we did not see queued (e.g. the extension started late): show it anyway.
          if (!p.execution) return false;
          this.onExecutionState({ ...p, state: 'queued' });
          return this.onExecutionState(p);
        }
        if (!p.execution) {
          // Dropped before it ran: bring back what it hid.
          this.entries = this.entries.filter((e) => e !== existing);
          this.entries.push(...existing.replaced.filter((r) => !this.entries.some((e) => overlaps(e, r.startLine, r.lastLine))));
          return true;
        }
        existing.phase = 'done';
        existing.execution = p.execution;
        existing.replaced = [];
        existing.streamed = '';
        existing.stale = existing.edited;
        return true;
      }
    }
  }

  /**
   * Appends streamed output of a queued or running execution, or output a
   * thread printed after it ended (idle), which shows under it as Jupyter
   * shows it; returns whether it is known.
   */
  onOutput(executionId: string, text: string, stream: Stream = 'stdout', idle = false): boolean {
    const e = this.get(executionId);
    if (!e) return false;
    if (e.phase === 'done') {
      if (!idle || !e.execution) return false;
      e.execution = { ...e.execution, [stream]: (e.execution[stream] + text).slice(-maxStreamed) };
      return true;
    }
    e.streamed = (e.streamed + text).slice(-maxStreamed);
    return true;
  }

  /**
   * Applies an update of a finished execution's displays (update_display in
   * a later cell, as Jupyter updates a display wherever it is): the outputs
   * with the update's display id take its data. Returns whether any did.
   */
  onDisplayUpdate(executionId: string, d: Display): boolean {
    const e = this.get(executionId);
    const x = e?.execution;
    if (!e || e.phase !== 'done' || !x || !d.displayId || !x.displays?.some((o) => o.displayId === d.displayId)) return false;
    e.execution = {
      ...x,
      displays: x.displays.map((o) => (o.displayId === d.displayId ? { ...o, data: d.data, metadata: d.metadata } : o)),
    };
    return true;
  }

  /**
   * Follows one edit: results below it move by the lines it added or removed;
   * a result whose lines it touches turns stale. Returns whether anything changed.
   */
  onTextChange(c: TextChange): boolean {
    const added = countNewlines(c.text) - (c.range.end.line - c.range.start.line);
    let changed = false;
    for (const e of this.entries) {
      changed = applyToEntry(e, c, added) || changed;
      for (const r of e.replaced) applyToEntry(r, c, added);
    }
    return changed;
  }

  /** Forgets every result (e.g. after a restart, when the user clears them). */
  clear(): void {
    this.entries = [];
  }

  /** Marks every finished result stale (the kernel lost the state they describe). */
  markAllStale(): boolean {
    let changed = false;
    for (const e of this.entries) {
      if (e.phase === 'done' && !e.stale) {
        e.stale = true;
        changed = true;
      }
    }
    return changed;
  }
}

function applyToEntry(e: ResultEntry, c: TextChange, added: number): boolean {
  const { start, end } = c.range;
  if (start.line > e.lastLine) return false; // below: no effect
  const endOfNew = start.line + countNewlines(c.text);
  // A line after the change moves by `added`; one inside it lands in the new text.
  const map = (line: number, inside: number): number => (line < start.line ? line : line > end.line ? line + added : inside);
  const startLine = map(e.startLine, start.line);
  const lastLine = Math.max(startLine, map(e.lastLine, endOfNew));
  const touches = end.line >= e.startLine;
  const changed = startLine !== e.startLine || lastLine !== e.lastLine || (touches && e.phase === 'done' && !e.stale);
  e.startLine = startLine;
  e.lastLine = lastLine;
  // An edit inside the result's lines: the code that ran is not the code there now.
  if (touches && e.phase === 'done') e.stale = true;
  else if (touches) e.edited = true;
  return changed;
}

function overlaps(e: ResultEntry, startLine: number, lastLine: number): boolean {
  return e.startLine <= lastLine && startLine <= e.lastLine;
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}
