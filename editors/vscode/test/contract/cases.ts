// The runner of the shared contract cases (lsp/testdata/contract/*.json,
// format in its README.md): one fresh server per case, driven with
// vscode-languageserver-protocol. "vscode" cases declare the capabilities the
// extension's own LanguageClient computes; the executionState notifications
// each case produced are then fed to the extension's inline-results model.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ResponseError, type ClientCapabilities } from 'vscode-languageserver-protocol/node';
import { specsByLook } from '../../src/decorations';
import type { ExecutionStateParams } from '../../src/protocol';
import { DocumentResults } from '../../src/results';
import { extensionInitialize, Session, type Message } from './harness';

export const casesDir = join('..', '..', 'lsp', 'testdata', 'contract');

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface Step {
  comment?: string;
  command?: string;
  argument?: Json;
  request?: string;
  notify?: string;
  params?: Json;
  change?: Json[];
  result?: Json;
  error?: Json;
  until?: { method: string; params?: Json };
  notifications?: { method: string; params?: Json }[];
  diagnostics?: Json;
}

export interface Case {
  description: string;
  client?: 'vscode' | 'neovim-0.7';
  initializationOptions?: Json;
  document: string;
  uri?: string;
  steps: Step[];
}

/** Replaces every "$uri" string in v. */
export function withUri(v: Json | undefined, uri: string): Json | undefined {
  if (v === '$uri') return uri;
  if (Array.isArray(v)) return v.map((x) => withUri(x, uri)!);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withUri(x, uri)!]));
  return v;
}

/** Why actual does not match the expectation, or undefined when it does (README, "Matching"). */
export function mismatch(expected: Json | undefined, actual: unknown, path = '$'): string | undefined {
  if (expected === '$any') return actual === undefined ? `${path}: missing` : undefined;
  if (typeof expected === 'string' && expected.startsWith('re:')) {
    if (typeof actual !== 'string') return `${path}: want a string matching ${expected}, got ${JSON.stringify(actual)}`;
    return new RegExp(expected.slice(3)).test(actual) ? undefined : `${path}: ${JSON.stringify(actual)} does not match ${expected}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: want an array, got ${JSON.stringify(actual)}`;
    if (actual.length !== expected.length) return `${path}: want ${expected.length} elements, got ${actual.length}: ${JSON.stringify(actual)}`;
    for (let i = 0; i < expected.length; i++) {
      const m = mismatch(expected[i], actual[i], `${path}[${i}]`);
      if (m) return m;
    }
    return undefined;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${path}: want an object, got ${JSON.stringify(actual)}`;
    const a = actual as Record<string, unknown>;
    for (const [k, v] of Object.entries(expected)) {
      if (v === '$absent') {
        if (k in a && a[k] !== undefined) return `${path}.${k}: want it absent, got ${JSON.stringify(a[k])}`;
        continue;
      }
      if (!(k in a)) return `${path}.${k}: missing`;
      const m = mismatch(v, a[k], `${path}.${k}`);
      if (m) return m;
    }
    return undefined;
  }
  return expected === actual ? undefined : `${path}: want ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

const matches = (pattern: { method: string; params?: Json }, m: Message): boolean => m.method === pattern.method && (pattern.params === undefined || mismatch(pattern.params, m.params) === undefined);

function capabilitiesFor(client: Case['client']): { capabilities: ClientCapabilities; refuse: string[] } {
  if (client === 'neovim-0.7') return { capabilities: { window: { workDoneProgress: true } }, refuse: ['workspace/codeLens/refresh'] };
  return { capabilities: extensionInitialize().capabilities, refuse: [] };
}

async function waitIndex(s: Session, from: number, pred: (m: Message) => boolean, what: string): Promise<number> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const i = s.all.findIndex((m, j) => j >= from && pred(m));
    if (i >= 0) return i;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}; received since the step: ${s.all.slice(from).map((m) => m.method).join(', ')}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function replay(name: string, c: Case): Promise<void> {
  const uri = c.uri ?? `file:///contract/${name}.py`;
  const { capabilities, refuse } = capabilitiesFor(c.client);
  const s = await Session.spawn({ capabilities, initializationOptions: c.initializationOptions, processId: null, refuse });
  try {
    await s.open(uri, c.document);
    for (const [i, raw] of c.steps.entries()) {
      const step = withUri(raw as unknown as Json, uri) as unknown as Step;
      const where = `step ${i + 1}${step.comment ? ` (${step.comment})` : ''}`;
      const from = s.all.length;
      let result: unknown;
      let error: ResponseError<unknown> | undefined;
      try {
        if (step.command !== undefined) {
          let arg: Json = step.argument === undefined ? {} : step.argument;
          if (arg !== null && typeof arg === 'object' && !Array.isArray(arg)) {
            arg = { ...arg };
            if (!('uri' in arg)) arg.uri = uri;
            else if (arg.uri === null) delete arg.uri;
          }
          result = await s.conn.sendRequest('workspace/executeCommand', { command: step.command, arguments: [arg] });
        } else if (step.request !== undefined) {
          result = await s.conn.sendRequest(step.request, step.params);
        } else if (step.notify !== undefined) {
          await s.conn.sendNotification(step.notify, step.params);
          await s.conn.sendRequest('textDocument/codeLens', { textDocument: { uri } });
        } else if (step.change !== undefined) {
          await s.edits(uri, step.change as never);
          await s.conn.sendRequest('textDocument/codeLens', { textDocument: { uri } });
        } else {
          throw new Error(`${where}: no command, request, notify or change`);
        }
      } catch (err) {
        if (!(err instanceof ResponseError)) throw err;
        error = err;
      }
      let end = s.all.length;
      if (step.error !== undefined) {
        assert.ok(error, `${where}: want an error, got the result ${JSON.stringify(result)}`);
        const m = mismatch(step.error, { code: error.code, message: error.message });
        assert.equal(m, undefined, `${where}: ${m}`);
      } else if (error) {
        assert.fail(`${where}: the server answered with error ${error.code}: ${error.message}`);
      }
      if (step.result !== undefined) {
        const m = mismatch(step.result, result);
        assert.equal(m, undefined, `${where}: ${m}`);
      }
      if (step.until) {
        const u = step.until;
        end = Math.max(end, (await waitIndex(s, from, (m) => matches(u, m), `${where}: ${JSON.stringify(u)}`)) + 1);
      }
      if (step.notifications) {
        // A subsequence of what arrived during the step.
        let k = 0;
        for (const m of s.all.slice(from, end)) if (k < step.notifications.length && matches(step.notifications[k]!, m)) k++;
        assert.equal(k, step.notifications.length, `${where}: no message matched ${JSON.stringify(step.notifications[k])}; got ${JSON.stringify(s.all.slice(from, end))}`);
      }
      if (step.diagnostics !== undefined) {
        const pubs = s.all.filter((m) => m.method === 'textDocument/publishDiagnostics' && m.params.uri === uri);
        const m = mismatch(step.diagnostics, pubs.length > 0 ? pubs[pubs.length - 1]!.params.diagnostics : []);
        assert.equal(m, undefined, `${where}: ${m}`);
      }
    }
    // The extension's inline results can follow what the server sent.
    const r = new DocumentResults();
    for (const m of s.all) if (m.method === 'backyard/executionState' && m.params.uri === uri) r.onExecutionState(m.params as ExecutionStateParams);
    for (const e of r.all()) if (e.phase === 'done') assert.ok(e.execution, `execution ${e.executionId} is done without a record`);
    specsByLook(r.all(), c.document.split('\n').length);
  } finally {
    await s.stop();
  }
}

