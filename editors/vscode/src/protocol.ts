// The LSP contract between backyard-ls and editors: the generated
// declarations (contract.gen.ts, from the Go package contract) and small
// helpers over them. No vscode import, so the contract tests use the same
// definitions as the extension.

export * from './contract.gen';
import { BackendValues, type Backend, type CommandId, type Display, type Execution, type Range, type RunResult } from './contract.gen';

/** The backends a person can pick. */
export const backends: readonly Backend[] = BackendValues;

/** A run answered with wait: false. */
export type QueuedResult = Required<Pick<RunResult, 'queued'>>;

export interface ExecuteCommandParams {
  command: string;
  arguments: [object];
}

/**
 * Whether a display is a kernel's payload (IPython's %load, %edit), not an
 * output: its metadata is {"payload": {"source": …}}. A front end acts on
 * it and shows nothing, as Jupyter's does (contract.Display.IsPayload).
 */
export function isPayload(d: Display): boolean {
  const payload = (d.metadata as { payload?: { source?: unknown } } | undefined)?.payload;
  return typeof payload?.source === 'string' && payload.source !== '';
}

/**
 * A display that is a kernel's set_next_input payload, not an output
 * (IPython's %load): its metadata is {"payload": {"source":
 * "set_next_input", "replace": …}}, its text/plain the text. The server
 * reads it the same way (contract.Display.NextInput).
 */
export function nextInputOf(d: Display): { text: string; replace: boolean } | undefined {
  const payload = (d.metadata as { payload?: { source?: unknown; replace?: unknown } } | undefined)?.payload;
  if (payload?.source !== 'set_next_input') return undefined;
  return { text: d.data['text/plain'] ?? '', replace: payload.replace === true };
}

/** The text a run set to replace its cell with (the last such payload, as in IPython), else undefined. */
export function nextInput(x: Execution): string | undefined {
  let text: string | undefined;
  for (const d of x.displays ?? []) {
    const n = nextInputOf(d);
    if (n?.replace) text = n.text;
  }
  return text;
}

/** The params of workspace/executeCommand: the command and its one object argument. */
export function executeParams(command: CommandId, arg: object): ExecuteCommandParams {
  return { command, arguments: [arg] };
}

export function lineArg(uri: string, line: number, wait?: boolean): { uri: string; line: number; wait?: boolean } {
  return wait === undefined ? { uri, line } : { uri, line, wait };
}

export function rangeArg(uri: string, range: Range, wait?: boolean): { uri: string; range: Range; wait?: boolean } {
  const r = { start: { ...range.start }, end: { ...range.end } };
  return wait === undefined ? { uri, range: r } : { uri, range: r, wait };
}

/** "monty", or "container · runsc" when the runtime adds something. */
export function backendLabel(backend: string, runtime: string): string {
  return runtime && runtime !== backend ? `${backend} · ${runtime}` : backend;
}

/** Milliseconds for a person, as the server's status lens writes them. */
export function formatDuration(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${ms.toFixed(0)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}
