// Drives the real backyard-ls over stdio with vscode-languageserver-protocol
// (the wire library vscode-languageclient uses), initialized with the
// capabilities and initializationOptions the extension's own client builds.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  createMessageConnection,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ErrorCodes,
  ExecuteCommandRequest,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  ResponseError,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type ClientCapabilities,
  type InitializeResult,
  type MessageConnection,
} from 'vscode-languageserver-protocol/node';
import { createClient, type ServerApi } from '../../src/client';
import type { DocSync } from '../../src/notebook';
import { executeParams, type CommandId } from '../../src/protocol';
import { serverPayload, type Get } from '../../src/settings';
import { mock } from '../mock/vscode';

export const serverPath = (): string => {
  const p = process.env.BACKYARD_LS;
  if (!p) throw new Error('BACKYARD_LS is not set (npm run test:contract builds the server)');
  return p;
};

/** What the extension's LanguageClient sends in initialize, with the given backyard.* settings. */
export function extensionInitialize(settings: Record<string, unknown> = {}): { capabilities: ClientCapabilities; initializationOptions: unknown } {
  mock.state.config = Object.fromEntries(Object.entries(settings).map(([k, v]) => [`backyard.${k}`, v]));
  const client = createClient(serverPath(), { isVirtual: () => false }) as unknown as {
    computeClientCapabilities(): ClientCapabilities;
    clientOptions: { initializationOptions: () => unknown };
  };
  return { capabilities: client.computeClientCapabilities(), initializationOptions: client.clientOptions.initializationOptions() };
}

/** The settings getter the extension uses, over a plain object. */
export const settingsGetter =
  (values: Record<string, unknown>): Get =>
  <T>(key: string, fallback: T): T =>
    (key in values ? values[key] : fallback) as T;

export interface Message {
  method: string;
  params: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** A server-to-client request rather than a notification. */
  request?: boolean;
}

export interface SpawnOptions {
  capabilities: ClientCapabilities;
  initializationOptions?: unknown;
  processId?: number | null;
  /** Server requests answered with MethodNotFound (as Neovim 0.7 answers workspace/codeLens/refresh). */
  refuse?: string[];
}

/** Upper bound of any wait, so a broken server fails a test instead of hanging it; never a timing assertion. */
const patience = 20_000;

export class Session {
  readonly messages: Message[] = [];
  /** Server-to-client requests, answered as VS Code does (null) unless answers has the method. */
  readonly requests: Message[] = [];
  /** How to answer server requests, by method (what the extension's handler would return). */
  readonly answers = new Map<string, (params: any) => unknown>(); // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Notifications and requests in the order they arrived. */
  readonly all: Message[] = [];
  init!: InitializeResult;
  stderr = '';
  private waiters: (() => void)[] = [];
  private listeners: ((m: Message) => void)[] = [];
  private versions = new Map<string, number>();

  private constructor(
    readonly proc: ChildProcessWithoutNullStreams,
    readonly conn: MessageConnection,
    refuse: string[] = [],
  ) {
    conn.onNotification((method: string, params: unknown) => this.record(this.messages, { method, params }));
    conn.onRequest((method: string, params: unknown) => {
      this.record(this.requests, { method, params, request: true });
      if (refuse.includes(method)) return new ResponseError(ErrorCodes.MethodNotFound, `method not found: ${method}`);
      return this.answers.get(method)?.(params) ?? null;
    });
    proc.stderr.on('data', (b: Buffer) => (this.stderr += b.toString()));
    conn.listen();
  }

  /** Starts the server and initializes it with exactly these options. */
  static async spawn(o: SpawnOptions): Promise<Session> {
    // The extension starts the server as `backyard-ls serve --stdio` (TransportKind.stdio adds --stdio).
    const proc = spawn(serverPath(), ['serve', '--stdio'], { stdio: 'pipe' });
    const s = new Session(proc, createMessageConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin)), o.refuse);
    s.init = await s.conn.sendRequest(InitializeRequest.type, {
      processId: o.processId === undefined ? process.pid : o.processId,
      clientInfo: { name: 'Visual Studio Code (contract test)', version: '1.82.0' },
      rootUri: null,
      capabilities: o.capabilities,
      initializationOptions: o.initializationOptions,
      workspaceFolders: null,
    });
    await s.conn.sendNotification(InitializedNotification.type, {});
    return s;
  }

  /** Starts the server as the extension does: its capabilities, its settings in initialize and right after. */
  static async start(settings: Record<string, unknown> = {}): Promise<Session> {
    const s = await Session.spawn(extensionInitialize(settings));
    // vscode-languageclient sends the synchronized section right after initialized.
    await s.conn.sendNotification(DidChangeConfigurationNotification.type, { settings: serverPayload(settingsGetter(settings)) });
    return s;
  }

  /** Calls fn for every notification from now on, as the extension's handlers get them. */
  onNotification(fn: (m: Message) => void): void {
    this.listeners.push(fn);
  }

  private record(list: Message[], m: Message): void {
    list.push(m);
    this.all.push(m);
    if (list === this.messages) this.listeners.forEach((f) => f(m));
    const w = this.waiters;
    this.waiters = [];
    w.forEach((f) => f());
  }

  /** Waits until pred holds for some notification (or request, with requests=true) and returns it. */
  async waitFor(pred: (m: Message) => boolean, what: string, requests = false): Promise<Message> {
    const deadline = Date.now() + patience;
    for (;;) {
      const found = (requests ? this.requests : this.messages).find(pred);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}; got ${this.messages.map((m) => m.method).join(', ')}\nserver log:\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 500);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  notifications(method: string): any[] {
    return this.messages.filter((m) => m.method === method).map((m) => m.params);
  }

  async open(uri: string, text: string): Promise<void> {
    this.versions.set(uri, 1);
    await this.conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'python', version: 1, text } });
  }

  async replace(uri: string, text: string): Promise<void> {
    const v = (this.versions.get(uri) ?? 0) + 1;
    this.versions.set(uri, v);
    await this.conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: v }, contentChanges: [{ text }] });
  }

  /** An incremental change, as VS Code sends for typing. */
  async edit(uri: string, range: { start: { line: number; character: number }; end: { line: number; character: number } }, text: string): Promise<void> {
    const v = (this.versions.get(uri) ?? 0) + 1;
    this.versions.set(uri, v);
    await this.conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: v }, contentChanges: [{ range, text }] });
  }

  /** didChange with these content changes, as given. */
  async edits(uri: string, contentChanges: ({ text: string } | { range: { start: { line: number; character: number }; end: { line: number; character: number } }; text: string })[]): Promise<void> {
    const v = (this.versions.get(uri) ?? 0) + 1;
    this.versions.set(uri, v);
    await this.conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: v }, contentChanges });
  }

  async close(uri: string): Promise<void> {
    await this.conn.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  }

  execute<T>(command: CommandId, arg: object): Promise<T> {
    return this.conn.sendRequest(ExecuteCommandRequest.type, executeParams(command, arg)) as Promise<T>;
  }

  /** The same ServerApi the extension's modules get, over this connection. */
  get api(): ServerApi {
    return { execute: (command, arg) => this.execute(command, arg) };
  }

  /** The extension's DocSync for notebook kernel documents, over this connection. */
  get docSync(): DocSync {
    return {
      open: (uri, text, version) => this.conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'python', version, text } }),
      change: (uri, text, version) => this.conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges: [{ text }] }),
      close: (uri) => this.conn.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } }),
    };
  }

  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => this.proc.once('exit', (code) => resolve(code)));
    try {
      await this.conn.sendRequest(ShutdownRequest.type);
      await this.conn.sendNotification(ExitNotification.type);
      this.proc.stdin.end(); // as vscode-languageclient does after exit
    } catch {
      this.proc.kill();
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const killed = new Promise<null>((r) => (timer = setTimeout(() => (this.proc.kill(), r(null)), 10_000)));
    const code = await Promise.race([exited, killed]);
    clearTimeout(timer);
    this.conn.dispose();
    return code;
  }
}

