// The "backyard" log: every execution's output as it streams, then its
// summary, value and traceback. Output arrives in arbitrary chunks, so only
// whole lines are logged until the execution ends.

import { isPayload, type Execution, type OutputParams } from './protocol';
import { errorLine, formatTraceback, noteLine, summaryLine } from './render';

/** The part of vscode.LogOutputChannel this module writes to. */
export interface Log {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

interface Pending {
  partial: { stdout: string; stderr: string };
  streamed: boolean;
}

export class OutputLog {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly log: Log) {}

  /** A backyard/output chunk; where names the code, e.g. "sales.py:12". */
  onOutput(p: OutputParams, where: string): void {
    if (p.idle) {
      // A thread printed it after the execution ended: whole, at once.
      for (const l of p.text.replace(/\n$/, '').split('\n')) this.line(p.stream, where, l);
      return;
    }
    const st = this.state(p.executionId);
    st.streamed = true;
    const text = st.partial[p.stream] + p.text;
    const lines = text.split('\n');
    st.partial[p.stream] = lines.pop()!;
    for (const l of lines) this.line(p.stream, where, l);
  }

  /** The end of an execution: the rest of its output, then a summary, the value or the traceback. */
  onDone(x: Execution, where: string): void {
    const st = this.pending.get(x.id);
    this.pending.delete(x.id);
    if (st) {
      for (const stream of ['stdout', 'stderr'] as const) {
        if (st.partial[stream] !== '') this.line(stream, where, st.partial[stream]);
      }
    }
    if (!st?.streamed) {
      // Nothing arrived as it ran (e.g. the extension started late): log the record's output.
      for (const stream of ['stdout', 'stderr'] as const) {
        if (x[stream] !== '') for (const l of x[stream].replace(/\n$/, '').split('\n')) this.line(stream, where, l);
      }
    }
    const summary = summaryLine(x, where);
    if (x.status === 'ok') this.log.info(summary);
    else this.log.error(summary);
    for (const d of (x.displays ?? []).filter((d) => !isPayload(d))) {
      const text = d.data['text/plain'];
      if (text !== undefined) for (const l of text.replace(/\n$/, '').split('\n')) this.log.info(`${where} │ ${l}`);
      const others = Object.keys(d.data).filter((m) => m !== 'text/plain').sort();
      if (others.length) this.log.info(`${where} │ [display: ${others.join(', ')}]`);
    }
    if (x.result) {
      const count = x.executionCount > 0 ? `[${x.executionCount}]` : '';
      x.result.text.split('\n').forEach((l, i) => this.log.info(`${where} │ ${i === 0 ? `Out${count}: ` : ''}${l}`));
    }
    if (x.error && x.error.traceback.length > 0) {
      for (const l of formatTraceback(x.error).split('\n')) this.log.error(`${where} │ ${l}`);
    } else if (x.error && x.status === 'error') {
      this.log.error(`${where} │ ${errorLine(x.error)}`);
    }
    for (const n of x.notes ?? []) this.log.warn(`${where} │ ${noteLine(n)}`);
  }

  /** An execution that never ran (dropped): forget what it buffered. */
  onDropped(executionId: string): void {
    this.pending.delete(executionId);
  }

  private state(id: string): Pending {
    let st = this.pending.get(id);
    if (!st) {
      st = { partial: { stdout: '', stderr: '' }, streamed: false };
      this.pending.set(id, st);
    }
    return st;
  }

  private line(stream: 'stdout' | 'stderr', where: string, text: string): void {
    if (stream === 'stdout') this.log.info(`${where} │ ${text}`);
    else this.log.warn(`${where} │ ${text}`);
  }
}

/** "sales.py:12": the file name and 1-based line of a run. */
export function whereLabel(uri: string, line: number): string {
  const path = uri.replace(/[?#].*$/, '');
  const name = decodeURIComponent(path.slice(path.lastIndexOf('/') + 1)) || uri;
  return `${name}:${line + 1}`;
}
