// A small stand-in for the `vscode` module: the classes and functions the
// extension uses, with the state tests inspect (decorations set, outputs
// written, messages shown, commands registered). Tests import their helpers
// from here and the extension's modules get it as `vscode` (esbuild alias).

/* eslint-disable @typescript-eslint/no-explicit-any */

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
  isEqual(o: Position): boolean {
    return this.line === o.line && this.character === o.character;
  }
  isBefore(o: Position): boolean {
    return this.line < o.line || (this.line === o.line && this.character < o.character);
  }
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: Position | number, b: Position | number, c?: number, d?: number) {
    this.start = typeof a === 'number' ? new Position(a, b as number) : a;
    this.end = typeof a === 'number' ? new Position(c!, d!) : (b as Position);
  }
  get isEmpty(): boolean {
    return this.start.isEqual(this.end);
  }
}

export class Selection extends Range {
  constructor(
    readonly anchor: Position,
    readonly active: Position,
  ) {
    super(anchor.isBefore(active) ? anchor : active, anchor.isBefore(active) ? active : anchor);
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
  ) {}
  static parse(s: string): Uri {
    const m = /^([a-z][a-z0-9+.-]*):(?:\/\/[^/]*)?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/i.exec(s);
    if (!m) throw new Error(`bad uri ${s}`);
    return new Uri(m[1]!, m[2]!, m[3] ?? '', m[4] ?? '');
  }
  static file(p: string): Uri {
    return new Uri('file', p, '', '');
  }
  static joinPath(u: Uri, ...parts: string[]): Uri {
    return new Uri(u.scheme, [u.path, ...parts].join('/'), u.query, u.fragment);
  }
  with(change: { scheme?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(change.scheme ?? this.scheme, change.path ?? this.path, change.query ?? this.query, change.fragment ?? this.fragment);
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    const auth = this.scheme === 'file' ? '//' : '';
    return `${this.scheme}:${auth}${this.path}${this.query ? `?${this.query}` : ''}${this.fragment ? `#${this.fragment}` : ''}`;
  }
}

export class Disposable {
  constructor(private readonly fn: () => void = () => {}) {}
  static from(...ds: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => ds.forEach((d) => d.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners: ((e: T) => unknown)[] = [];
  readonly event = (fn: (e: T) => unknown): Disposable => {
    this.listeners.push(fn);
    return new Disposable(() => {
      this.listeners = this.listeners.filter((l) => l !== fn);
    });
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: this.emitter.event,
  };
  cancel(): void {
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
  dispose(): void {}
}

export class CancellationError extends Error {}

export class ThemeColor {
  constructor(readonly id: string) {}
}
export class ThemeIcon {
  constructor(readonly id: string) {}
}

export class MarkdownString {
  isTrusted = false;
  constructor(public value = '') {}
  appendMarkdown(s: string): this {
    this.value += s;
    return this;
  }
}

export enum DecorationRangeBehavior {
  OpenOpen = 0,
  ClosedClosed = 1,
  OpenClosed = 2,
  ClosedOpen = 3,
}
export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}
export enum TextEditorRevealType {
  Default = 0,
  InCenter = 1,
  InCenterIfOutsideViewport = 2,
  AtTop = 3,
}
export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
  Two = 2,
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}
export enum DiagnosticSeverity {
  Error = 0,
  Warning = 1,
  Information = 2,
  Hint = 3,
}
export enum NotebookCellKind {
  Markup = 1,
  Code = 2,
}
export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}
export enum LogLevel {
  Off = 0,
  Trace = 1,
  Debug = 2,
  Info = 3,
  Warning = 4,
  Error = 5,
}

export class TreeItem {
  description?: string;
  tooltip?: string;
  constructor(
    readonly label: string,
    readonly collapsibleState?: TreeItemCollapsibleState,
  ) {}
}

export class Diagnostic {
  source?: string;
  constructor(
    readonly range: Range,
    readonly message: string,
    readonly severity: DiagnosticSeverity = DiagnosticSeverity.Error,
  ) {}
}

export class NotebookCellOutputItem {
  constructor(
    readonly data: Uint8Array,
    readonly mime: string,
  ) {}
  static text(value: string, mime = 'text/plain'): NotebookCellOutputItem {
    return new NotebookCellOutputItem(new TextEncoder().encode(value), mime);
  }
  static stdout(value: string): NotebookCellOutputItem {
    return NotebookCellOutputItem.text(value, 'application/vnd.code.notebook.stdout');
  }
  static stderr(value: string): NotebookCellOutputItem {
    return NotebookCellOutputItem.text(value, 'application/vnd.code.notebook.stderr');
  }
  static json(value: unknown, mime = 'text/x-json'): NotebookCellOutputItem {
    return NotebookCellOutputItem.text(JSON.stringify(value), mime);
  }
  static error(e: Error): NotebookCellOutputItem {
    return NotebookCellOutputItem.text(JSON.stringify({ name: e.name, message: e.message, stack: e.stack }), 'application/vnd.code.notebook.error');
  }
  /** Test helper: the data as text. */
  get text(): string {
    return new TextDecoder().decode(this.data);
  }
}

export class NotebookCellOutput {
  private static ids = 0;
  readonly id = `output-${NotebookCellOutput.ids++}`;
  constructor(
    public items: NotebookCellOutputItem[],
    public metadata?: Record<string, unknown>,
  ) {}
}

// --- documents and editors ---

export interface MockDocument {
  uri: Uri;
  languageId: string;
  version: number;
  text: string;
  readonly lineCount: number;
  lineAt(i: number): { text: string; range: Range };
  getText(): string;
}

/** Mock documents by uri, for workspace.applyEdit. */
const documents = new Map<string, MockDocument>();

export function mockDocument(text: string, uri = Uri.file('/home/ada/demo.py'), languageId = 'python'): MockDocument {
  const doc: MockDocument = {
    uri,
    languageId,
    version: 1,
    text,
    get lineCount() {
      return doc.text.split('\n').length;
    },
    lineAt(i: number) {
      const lines = doc.text.split('\n');
      if (i < 0 || i >= lines.length) throw new Error(`line ${i} out of range`);
      const t = lines[i]!;
      return { text: t, range: new Range(i, 0, i, t.length) };
    },
    getText() {
      return doc.text;
    },
  };
  documents.set(uri.toString(), doc);
  return doc;
}

/** The text edits of a workspace edit, applied by workspace.applyEdit to mock documents. */
export class WorkspaceEdit {
  readonly edits: { uri: Uri; range: Range; text: string }[] = [];
  replace(uri: Uri, range: Range, text: string): void {
    this.edits.push({ uri, range, text });
  }
}

export interface MockEditor {
  document: MockDocument;
  selection: Selection;
  /** Decoration options per decoration type key, as last set. */
  decorations: Map<string, any[]>;
  setDecorations(type: { key: string }, options: any[]): void;
  edit(cb: (eb: { insert(p: Position, text: string): void }) => void): Promise<boolean>;
  revealRange(r: Range): void;
}

function offsetOf(text: string, p: Position): number {
  const lines = text.split('\n');
  let off = 0;
  for (let i = 0; i < p.line; i++) off += lines[i]!.length + 1;
  return off + p.character;
}

export function mockEditor(doc: MockDocument, cursor = new Position(0, 0)): MockEditor {
  const ed: MockEditor = {
    document: doc,
    selection: new Selection(cursor, cursor),
    decorations: new Map(),
    setDecorations(type, options) {
      ed.decorations.set(type.key, options);
    },
    async edit(cb) {
      const inserts: { p: Position; text: string }[] = [];
      cb({ insert: (p, text) => inserts.push({ p, text }) });
      for (const { p, text } of inserts.reverse()) {
        const off = offsetOf(doc.text, p);
        doc.text = doc.text.slice(0, off) + text + doc.text.slice(off);
      }
      doc.version++;
      return true;
    },
    revealRange() {},
  };
  return ed;
}

// --- notebooks ---

export interface MockExecution {
  cell: any;
  token: CancellationTokenSource['token'];
  executionOrder?: number;
  started: boolean;
  ended?: { success: boolean | undefined };
  outputs: NotebookCellOutput[];
  start(t?: number): void;
  end(success: boolean | undefined, t?: number): void;
  clearOutput(): Promise<void>;
  replaceOutput(o: NotebookCellOutput | NotebookCellOutput[]): Promise<void>;
  appendOutput(o: NotebookCellOutput | NotebookCellOutput[]): Promise<void>;
  appendOutputItems(items: NotebookCellOutputItem | NotebookCellOutputItem[], output: NotebookCellOutput): Promise<void>;
  replaceOutputItems(items: NotebookCellOutputItem | NotebookCellOutputItem[], output: NotebookCellOutput): Promise<void>;
}

export interface MockController {
  id: string;
  notebookType: string;
  label: string;
  supportedLanguages?: string[];
  supportsExecutionOrder?: boolean;
  description?: string;
  detail?: string;
  executeHandler?: (cells: any[], nb: any, c: any) => unknown;
  interruptHandler?: (nb: any) => unknown;
  executions: MockExecution[];
  selectEmitter: EventEmitter<{ notebook: any; selected: boolean }>;
  onDidChangeSelectedNotebooks: EventEmitter<{ notebook: any; selected: boolean }>['event'];
  createNotebookCellExecution(cell: any): MockExecution;
  dispose(): void;
}

const asArray = <T>(x: T | T[]): T[] => (Array.isArray(x) ? x : [x]);

function createController(id: string, notebookType: string, label: string): MockController {
  const selectEmitter = new EventEmitter<{ notebook: any; selected: boolean }>();
  const c: MockController = {
    id,
    notebookType,
    label,
    executions: [],
    selectEmitter,
    onDidChangeSelectedNotebooks: selectEmitter.event,
    createNotebookCellExecution(cell) {
      // As VS Code: one execution of a cell at a time; outputs are the cell's, and end sets its execution summary.
      if (cell.executing) throw new Error(`duplicate execution for ${cell.document.uri}`);
      cell.executing = true;
      let startTime: number | undefined;
      const verify = (): void => {
        if (!ex.started) throw new Error('Must call start before modifying cell output');
        if (ex.ended) throw new Error('Cannot modify cell output after calling resolve');
      };
      const ex: MockExecution = {
        cell,
        token: new CancellationTokenSource().token,
        started: false,
        get outputs() {
          return cell.outputs;
        },
        set outputs(o) {
          cell.outputs = o;
        },
        start(t) {
          if (ex.started) throw new Error('Cannot call start again');
          ex.started = true;
          startTime = t;
        },
        end(success, t) {
          if (ex.ended) throw new Error('Cannot call resolve twice');
          ex.ended = { success };
          cell.executing = false;
          cell.executionSummary = { executionOrder: ex.executionOrder, success, timing: startTime !== undefined && t !== undefined ? { startTime, endTime: t } : undefined };
        },
        async clearOutput() {
          verify();
          ex.outputs = [];
        },
        async replaceOutput(o) {
          verify();
          ex.outputs = asArray(o);
        },
        async appendOutput(o) {
          verify();
          ex.outputs.push(...asArray(o));
        },
        async appendOutputItems(items, output) {
          verify();
          const target = ex.outputs.find((o) => o.id === output.id);
          if (!target) throw new Error('no such output');
          target.items.push(...asArray(items));
        },
        async replaceOutputItems(items, output) {
          verify();
          const target = ex.outputs.find((o) => o.id === output.id);
          if (!target) throw new Error('no such output');
          target.items = asArray(items);
        },
      };
      c.executions.push(ex);
      return ex;
    },
    dispose() {},
  };
  state.controllers.push(c);
  return c;
}

export function mockNotebook(path: string, sources: string[]): any {
  const uri = Uri.file(path);
  const nb: any = { uri, notebookType: 'jupyter-notebook' };
  nb.cells = sources.map((src, index) => ({
    index,
    kind: NotebookCellKind.Code,
    notebook: nb,
    document: mockDocument(src, Uri.parse(`vscode-notebook-cell:${path}#C${index}`)),
    outputs: [],
  }));
  nb.getCells = () => nb.cells;
  nb.cellAt = (i: number) => nb.cells[i];
  nb.cellCount = nb.cells.length;
  return nb;
}

// --- namespaces ---

interface DecorationType {
  key: string;
  options: any;
  dispose(): void;
}

interface StatusItem {
  id: string;
  text: string;
  tooltip?: string;
  command?: string;
  name?: string;
  visible: boolean;
  show(): void;
  hide(): void;
  dispose(): void;
}

const state = {
  config: {} as Record<string, unknown>,
  decorationTypes: [] as DecorationType[],
  statusItems: [] as StatusItem[],
  messages: [] as { level: 'info' | 'warning' | 'error'; text: string; items: string[] }[],
  commands: new Map<string, (...args: any[]) => any>(),
  executed: [] as { command: string; args: any[] }[],
  controllers: [] as MockController[],
  diagnostics: new Map<string, Diagnostic[]>(),
  quickPickAnswer: undefined as ((items: any[]) => any) | undefined,
  /** What an input box answers (undefined: dismissed). */
  inputAnswer: undefined as ((options: unknown) => string | undefined) | undefined,
  inputBoxes: [] as unknown[],
  /** The button a shown message answers with. */
  messageAnswer: undefined as string | undefined,
  quickPicks: [] as any[][],
  logs: [] as { level: string; text: string }[],
  /** The workspace edits applied. */
  applied: [] as WorkspaceEdit[],
  emitters: {
    visibleEditors: new EventEmitter<any>(),
    activeEditor: new EventEmitter<any>(),
    activeNotebookEditor: new EventEmitter<any>(),
    changeText: new EventEmitter<any>(),
    closeText: new EventEmitter<any>(),
    closeNotebook: new EventEmitter<any>(),
    changeConfig: new EventEmitter<any>(),
  },
};

/** Test helpers. */
export const mock = {
  state,
  reset(): void {
    state.config = {};
    state.decorationTypes = [];
    state.statusItems = [];
    state.messages = [];
    state.commands.clear();
    state.executed = [];
    state.controllers = [];
    state.diagnostics.clear();
    state.quickPickAnswer = undefined;
    state.inputAnswer = undefined;
    state.inputBoxes = [];
    state.messageAnswer = undefined;
    state.quickPicks = [];
    state.logs = [];
    state.applied = [];
    documents.clear();
    window.visibleTextEditors = [];
    window.activeTextEditor = undefined;
    window.activeNotebookEditor = undefined;
    for (const e of Object.values(state.emitters)) e.dispose();
  },
  /** Fires onDidChangeTextDocument for an insert of text at p in doc (and applies it). */
  typeText(doc: MockDocument, p: Position, text: string, removeTo?: Position): void {
    const end = removeTo ?? p;
    const a = offsetOf(doc.text, p);
    const b = offsetOf(doc.text, end);
    doc.text = doc.text.slice(0, a) + text + doc.text.slice(b);
    doc.version++;
    state.emitters.changeText.fire({ document: doc, contentChanges: [{ range: new Range(p, end), text }] });
  },
  decorationKey(look: string): string {
    const t = state.decorationTypes.find((d) => d.options.after?.color?.id === `backyard.result.${look}`);
    if (!t) throw new Error(`no decoration type for ${look}`);
    return t.key;
  },
};

export const window = {
  visibleTextEditors: [] as any[],
  activeTextEditor: undefined as any,
  activeNotebookEditor: undefined as any,
  createTextEditorDecorationType(options: any): DecorationType {
    const t = { key: `decoration-${state.decorationTypes.length}`, options, dispose() {} };
    state.decorationTypes.push(t);
    return t;
  },
  createOutputChannel(name: string, _opts?: unknown) {
    const log = (level: string) => (text: string) => state.logs.push({ level, text });
    return { name, info: log('info'), warn: log('warn'), error: log('error'), debug: log('debug'), trace: log('trace'), append: log('info'), appendLine: log('info'), show() {}, hide() {}, clear() {}, dispose() {}, replace() {}, logLevel: LogLevel.Info, onDidChangeLogLevel: new EventEmitter<LogLevel>().event };
  },
  createStatusBarItem(id: string): StatusItem {
    const item: StatusItem = {
      id,
      text: '',
      visible: false,
      show() {
        item.visible = true;
      },
      hide() {
        item.visible = false;
      },
      dispose() {},
    };
    state.statusItems.push(item);
    return item;
  },
  createTreeView(_id: string, _opts: unknown) {
    return { message: undefined as string | undefined, dispose() {} };
  },
  /** Runs task at once; reports are recorded as log lines at level "progress". */
  async withProgress(opts: { title?: string }, task: (p: { report(v: { message?: string }): void }, token: unknown) => Promise<unknown>) {
    state.logs.push({ level: 'progress', text: opts.title ?? '' });
    return task({ report: (v) => state.logs.push({ level: 'progress', text: v.message ?? '' }) }, new CancellationTokenSource().token);
  },
  async showInputBox(options: unknown, _token?: unknown) {
    state.inputBoxes.push(options);
    return state.inputAnswer ? state.inputAnswer(options) : undefined;
  },
  async showQuickPick(items: any[]) {
    state.quickPicks.push(items);
    return state.quickPickAnswer ? state.quickPickAnswer(items) : undefined;
  },
  async showInformationMessage(text: string, ...items: string[]) {
    state.messages.push({ level: 'info', text, items });
    return state.messageAnswer && items.includes(state.messageAnswer) ? state.messageAnswer : undefined;
  },
  async showWarningMessage(text: string, ...items: string[]) {
    state.messages.push({ level: 'warning', text, items });
    return state.messageAnswer && items.includes(state.messageAnswer) ? state.messageAnswer : undefined;
  },
  async showErrorMessage(text: string, ...items: string[]) {
    state.messages.push({ level: 'error', text, items });
    return state.messageAnswer && items.includes(state.messageAnswer) ? state.messageAnswer : undefined;
  },
  onDidChangeVisibleTextEditors: state.emitters.visibleEditors.event,
  onDidChangeActiveTextEditor: state.emitters.activeEditor.event,
  onDidChangeActiveNotebookEditor: state.emitters.activeNotebookEditor.event,
};

export const workspace = {
  getConfiguration(section?: string) {
    return {
      get<T>(key: string, fallback?: T): T | undefined {
        const full = section ? `${section}.${key}` : key;
        return full in state.config ? (state.config[full] as T) : fallback;
      },
      has(key: string) {
        return `${section}.${key}` in state.config;
      },
    };
  },
  onDidChangeTextDocument: state.emitters.changeText.event,
  onDidCloseTextDocument: state.emitters.closeText.event,
  onDidCloseNotebookDocument: state.emitters.closeNotebook.event,
  onDidChangeConfiguration: state.emitters.changeConfig.event,
  // Events only vscode-languageclient listens to.
  onDidOpenTextDocument: new EventEmitter<any>().event,
  onDidSaveTextDocument: new EventEmitter<any>().event,
  onWillSaveTextDocument: new EventEmitter<any>().event,
  onDidOpenNotebookDocument: new EventEmitter<any>().event,
  onDidChangeNotebookDocument: new EventEmitter<any>().event,
  onDidSaveNotebookDocument: new EventEmitter<any>().event,
  onDidChangeWorkspaceFolders: new EventEmitter<any>().event,
  /** Applies the edits to the mock documents (each fires onDidChangeTextDocument); false when one names no document. */
  async applyEdit(edit: WorkspaceEdit): Promise<boolean> {
    state.applied.push(edit);
    if (!edit.edits.every((e) => documents.has(e.uri.toString()))) return false;
    for (const e of edit.edits) mock.typeText(documents.get(e.uri.toString())!, e.range.start, e.text, e.range.end);
    return true;
  },
  notebookDocuments: [] as any[],
  textDocuments: [] as any[],
  workspaceFolders: undefined,
};

type Filter = string | { language?: string; scheme?: string; notebookType?: string };

/** Feature providers vscode-languageclient registers (code lenses, inlay hints, …), by method name. */
const providers: Record<string, unknown[]> = {};

const languagesBase = {
  createDiagnosticCollection(name: string) {
    return {
      name,
      set(uri: Uri, diags: Diagnostic[]) {
        state.diagnostics.set(uri.toString(), diags);
      },
      delete(uri: Uri) {
        state.diagnostics.delete(uri.toString());
      },
      clear() {
        state.diagnostics.clear();
      },
      forEach() {},
      get() {
        return undefined;
      },
      has() {
        return false;
      },
      dispose() {},
    };
  },
  match(selector: Filter | Filter[], doc: { languageId: string; uri: Uri }): number {
    const filters = Array.isArray(selector) ? selector : [selector];
    const ok = filters.some((f) => (typeof f === 'string' ? f === doc.languageId : (!f.language || f.language === doc.languageId) && (!f.scheme || f.scheme === doc.uri.scheme)));
    return ok ? 10 : 0;
  },
  providers,
};

// Any other register*Provider call records the provider and returns a disposable.
export const languages = new Proxy(languagesBase, {
  get(target, key: string) {
    if (key in target) return (target as Record<string, unknown>)[key];
    if (key.startsWith('register')) {
      return (_selector: unknown, provider: unknown) => {
        (providers[key] ??= []).push(provider);
        return new Disposable();
      };
    }
    return undefined;
  },
}) as typeof languagesBase & Record<string, (...args: any[]) => Disposable>;

export const notebooks = {
  createNotebookController: createController,
};

export const commands = {
  registerCommand(id: string, fn: (...args: any[]) => any): Disposable {
    if (state.commands.has(id)) throw new Error(`command '${id}' already exists`);
    state.commands.set(id, fn);
    return new Disposable(() => state.commands.delete(id));
  },
  async executeCommand(command: string, ...args: any[]) {
    state.executed.push({ command, args });
    const fn = state.commands.get(command);
    return fn ? fn(...args) : undefined;
  },
};

export const env = { language: 'en', machineId: 'test', sessionId: 'test', appName: 'mock' };
export const version = '1.82.0';
export const extensions = { getExtension: () => undefined, all: [] };

// Base classes vscode-languageclient extends when its modules load (the
// contract tests build the real client to read its capabilities).
export class CompletionItem {}
export class CodeLens {}
export class CodeAction {}
export class DocumentLink {}
export class InlayHint {}
export class SymbolInformation {}
export class CallHierarchyItem {}
export class TypeHierarchyItem {}
export class CodeActionKind {
  constructor(readonly value: string) {}
  static readonly Empty = new CodeActionKind('');
  static readonly QuickFix = new CodeActionKind('quickfix');
  static readonly Refactor = new CodeActionKind('refactor');
  static readonly RefactorExtract = new CodeActionKind('refactor.extract');
  static readonly RefactorInline = new CodeActionKind('refactor.inline');
  static readonly RefactorRewrite = new CodeActionKind('refactor.rewrite');
  static readonly Source = new CodeActionKind('source');
  static readonly SourceOrganizeImports = new CodeActionKind('source.organizeImports');
  static readonly SourceFixAll = new CodeActionKind('source.fixAll');
}
