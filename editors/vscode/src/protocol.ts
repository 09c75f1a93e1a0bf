// The LSP contract between backyard-ls and editors (DESIGN.md, "LSP
// contract"): command IDs, their single-object arguments, the Execution
// record and the custom notifications. No vscode import, so the contract
// tests use the same definitions as the extension.

export const Cmd = {
  runCell: 'backyard.runCell',
  runAbove: 'backyard.runAbove',
  runBelow: 'backyard.runBelow',
  runAll: 'backyard.runAll',
  runRange: 'backyard.runRange',
  interrupt: 'backyard.interrupt',
  restart: 'backyard.restart',
  setBackend: 'backyard.setBackend',
  kernelInfo: 'backyard.kernelInfo',
  variables: 'backyard.variables',
} as const;
export type CommandId = (typeof Cmd)[keyof typeof Cmd];

export const Notify = {
  output: 'backyard/output',
  executionState: 'backyard/executionState',
  kernelState: 'backyard/kernelState',
} as const;

export interface Position {
  line: number;
  character: number;
}
export interface Range {
  start: Position;
  end: Position;
}

export type Backend = 'auto' | 'monty' | 'container';
export const backends: readonly Backend[] = ['auto', 'monty', 'container'];

export type Status = 'ok' | 'error' | 'interrupted' | 'timeout' | 'crashed';

/** A traceback frame; line is a 0-based document line, -1 outside the code that ran. */
export interface Frame {
  line: number;
  name: string;
  text: string;
}

export interface ExecutionError {
  ename: string;
  evalue: string;
  traceback: Frame[];
}

/** The trailing expression's value: its repr and, where the backend has one, a MIME bundle (binary data base64). */
export interface Value {
  text: string;
  mime?: Record<string, string>;
}

export interface Execution {
  id: string;
  range: Range;
  executionCount: number;
  status: Status;
  stdout: string;
  stderr: string;
  result?: Value;
  error?: ExecutionError;
  backend: string;
  runtime: string;
  durationMs: number;
}

export interface RunResult {
  executions: Execution[];
}
/** The answer to a run command sent with wait: false. */
export interface QueuedResult {
  queued: string[];
}

export type KernelState = 'starting' | 'idle' | 'busy' | 'dead';

export interface KernelInfo {
  uri?: string;
  backend: string;
  runtime: string;
  state: KernelState;
  executionCount: number;
  versions?: Record<string, string>;
  notes?: string[];
}

export interface Variable {
  name: string;
  type: string;
  repr: string;
}
export interface VariablesResult {
  variables: Variable[];
}
export interface InterruptResult {
  interrupted: boolean;
}

export interface OutputParams {
  uri: string;
  executionId: string;
  stream: 'stdout' | 'stderr';
  text: string;
}
export type ExecutionPhase = 'queued' | 'running' | 'done';
export interface ExecutionStateParams {
  uri: string;
  executionId: string;
  range: Range;
  state: ExecutionPhase;
  /** Present on "done" for an execution that ran; absent for one that was dropped. */
  execution?: Execution;
}
export interface KernelStateParams {
  uri: string;
  backend: string;
  runtime: string;
  state: KernelState;
}

// --- arguments: every command takes one JSON object ---

export interface UriArg {
  uri: string;
}
export interface LineArg extends UriArg {
  line: number;
  wait?: boolean;
}
export interface RangeArg extends UriArg {
  range: Range;
  wait?: boolean;
}
export interface AllArg extends UriArg {
  wait?: boolean;
}
export interface BackendArg extends UriArg {
  backend: Backend;
}

export interface ExecuteCommandParams {
  command: string;
  arguments: [object];
}

/** The params of workspace/executeCommand: the command and its one object argument. */
export function executeParams(command: CommandId, arg: object): ExecuteCommandParams {
  return { command, arguments: [arg] };
}

export function lineArg(uri: string, line: number, wait?: boolean): LineArg {
  return wait === undefined ? { uri, line } : { uri, line, wait };
}

export function rangeArg(uri: string, range: Range, wait?: boolean): RangeArg {
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
