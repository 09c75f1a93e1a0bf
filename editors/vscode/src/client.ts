// The language client: starts backyard-ls, syncs python documents and the
// backyard.* settings, and gives the rest of the extension one way to call
// the server's commands. The server's commands (lens clicks) are registered
// by vscode-languageclient itself; this module registers none.

import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  RevealOutputChannelOn,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { executeParams, type CommandId } from './protocol';
import { inlineResults, serverPayload, type Get } from './settings';

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
  let client: LanguageClient | undefined;
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'python' },
      { scheme: 'untitled', language: 'python' },
    ],
    synchronize: { configurationSection: 'backyard' },
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
        // The client would send the raw section; send the server's shape instead (the same as initializationOptions).
        async didChangeConfiguration() {
          await client?.sendNotification(DidChangeConfigurationNotification.type, { settings: serverPayload(config) });
        },
      },
    },
  };
  client = new LanguageClient('backyard', 'backyard-ls server', serverOptions, clientOptions);
  return client;
}

export function serverApi(client: LanguageClient): ServerApi {
  return {
    execute: <T>(command: CommandId, arg: object) => client.sendRequest(ExecuteCommandRequest.type, executeParams(command, arg)) as Promise<T>,
  };
}
