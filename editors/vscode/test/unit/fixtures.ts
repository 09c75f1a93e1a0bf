// Execution records and notifications for the unit tests.
import type { Execution, ExecutionStateParams } from '../../src/protocol';

export function execution(over: Partial<Execution> = {}): Execution {
  return {
    id: 'e1',
    range: { start: { line: 1, character: 0 }, end: { line: 2, character: 5 } },
    executionCount: 1,
    status: 'ok',
    stdout: '',
    stderr: '',
    backend: 'monty',
    runtime: '',
    durationMs: 1.25,
    ...over,
  };
}

export function state(id: string, startLine: number, lastLine: number, phase: ExecutionStateParams['state'], x?: Execution, uri = 'file:///home/ada/demo.py'): ExecutionStateParams {
  const p: ExecutionStateParams = { uri, executionId: id, range: { start: { line: startLine, character: 0 }, end: { line: lastLine, character: 3 } }, state: phase };
  if (x) p.execution = { ...x, id };
  return p;
}
