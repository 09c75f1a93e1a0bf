// input() in a cell: the server asks with backyard/input (only a client that
// advertises experimental.backyard.input, which this one does), and the
// person answers in an input box. Escape dismisses it: the cell gets
// KeyboardInterrupt. An interrupt of the cell cancels the request, which
// closes the box.

import * as vscode from 'vscode';
import type { ClientCapabilities, StaticFeature } from 'vscode-languageclient/node';
import type { InputParams, InputResult } from './protocol';

/** Adds experimental.backyard.input to the client's capabilities. */
export const inputFeature: StaticFeature = {
  fillClientCapabilities(caps: ClientCapabilities): void {
    const x = (caps.experimental ??= {}) as Record<string, Record<string, unknown> | undefined>;
    x.backyard = { ...x.backyard, input: true };
  },
  initialize(): void {},
  getState: () => ({ kind: 'static' }),
  clear(): void {},
};

/** The input box for one question: the prompt as the cell passed it, the file it came from. */
export function inputBoxOptions(p: InputParams): vscode.InputBoxOptions {
  const file = decodeURIComponent(p.uri.slice(p.uri.lastIndexOf('/') + 1));
  return {
    title: `backyard: input() in ${file}`,
    prompt: p.prompt.trim() || 'The cell is waiting for a line of input',
    password: p.password === true,
    ignoreFocusOut: true, // the cell waits; a click elsewhere must not answer for the person
  };
}

/** Asks the person; a dismissed box is a null value. */
export async function askInput(p: InputParams, token: vscode.CancellationToken): Promise<InputResult> {
  const value = await vscode.window.showInputBox(inputBoxOptions(p), token);
  return { value: value ?? null };
}
