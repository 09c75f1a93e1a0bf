// The language client: starts backyard-ls, syncs python documents, answers
// the server's workspace/configuration requests for the backyard.* settings
// (the server asks at start and whenever the configuration changes), and gives the rest of the extension one way to call
// the server's commands. The server's commands (lens clicks) are registered
// by vscode-languageclient itself; this module registers none.

import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  RevealOutputChannelOn,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { inputFeature } from './input';
import { executeParams, type CommandId } from './protocol';
import { inlineResults, serverPayload, serverSettings, type Get } from './settings';

/** What the rest of the extension needs from the server. */
export interface ServerApi {
  execute<T>(command: CommandId, arg: object): Promise<T>;
}

export interface ClientHooks {
  /** Documents the extension opened itself (notebook kernels): their diagnostics are not shown on a file. */
  isVirtual(uri: string): boolean;
}

/** Settings of the backyard section, read fresh on each call. */
export const config: Get = (key, fallback) => vscode.workspace.getConfiguration('backyard').get(key, fallback);

export function createClient(serverPath: string, hooks: ClientHooks): LanguageClient {
  const serverOptions: ServerOptions = {
    command: serverPath,
    args: ['serve'],
    transport: TransportKind.stdio,
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'python' },
      { scheme: 'untitled', language: 'python' },
    ],
    // A function, so a restarted client sends the settings current then.
    initializationOptions: () => serverPayload(config),
    // Failed requests are reported by the command that sent them, with the server's message.
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    middleware: {
      handleDiagnostics(uri, diagnostics, next) {
        if (!hooks.isVirtual(uri.toString())) next(uri, diagnostics);
      },
      provideInlayHints(document, range, token, next) {
        return inlineResults(config) === 'inlayHints' ? next(document, range, token) : [];
      },
      workspace: {
        // The raw section holds editor-only keys; answer with the server's shape (the same as initializationOptions).
        configuration(params, token, next) {
          if (params.items.every((i) => i.section === 'backyard')) return params.items.map(() => serverSettings(config));
          return next(params, token);
        },
      },
    },
  };
  const client = new LanguageClient('backyard', 'backyard-ls server', serverOptions, clientOptions);
  client.registerFeature(inputFeature);
  return client;
}

export function serverApi(client: LanguageClient): ServerApi {
  return {
    execute: <T>(command: CommandId, arg: object) => client.sendRequest(ExecuteCommandRequest.type, executeParams(command, arg)) as Promise<T>,
  };
}
