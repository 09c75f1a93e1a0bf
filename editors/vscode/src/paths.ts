// Finding the two binaries: the server (setting, the extension's bin/, the
// selected Python environment, PATH) and the Monty worker, searched in the
// server's own order (monty/find.go) so the extension can tell the user
// before the first run fails.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';

/** What the Python extension says is selected: an interpreter, or an environment folder. */
export interface PythonSelection {
  path?: string;
  /** Why there is no path, for the message when nothing was found. */
  note?: string;
}

export interface Probe {
  isExecutable(p: string): boolean;
  realpath(p: string): string;
  env: Record<string, string | undefined>;
  home: string;
  platform: NodeJS.Platform;
  /** The Python environment selected in the Python extension (ms-python.python), if any. */
  python?(): PythonSelection;
}

export interface Candidate {
  source: string;
  path: string;
  found: boolean;
}

export interface Lookup {
  /** The binary to use, or undefined. */
  path?: string;
  /** Every place looked at, in order, for the message when nothing was found. */
  tried: Candidate[];
  /** Places that could not be looked at, and why (the Python extension not active yet). */
  notes?: string[];
  /** Set when an explicit path (a setting, MONTY_BIN) names no executable: that is an error, not a fallback. */
  badExplicit?: Candidate;
}

export const PYTHON_EXTENSION = 'ms-python.python';

/** The parts of the Python extension's API read here: the environments API, else the older settings API. */
interface PythonApi {
  environments?: { getActiveEnvironmentPath?(resource?: unknown): { path?: string } | undefined };
  settings?: { getExecutionDetails?(resource?: unknown): { execCommand?: string[] } | undefined };
}

/**
 * The selection of the Python extension. Its exports exist only once it has
 * activated, and discovery cannot wait for that, so an extension that is
 * still activating is reported, not read.
 */
export function pythonSelection(ext: { isActive: boolean; exports?: unknown } | undefined, resource?: unknown): PythonSelection {
  if (!ext) return {};
  if (!ext.isActive) return { note: `${PYTHON_EXTENSION} (not active yet)` };
  try {
    const api = ext.exports as PythonApi | undefined;
    const p = api?.environments?.getActiveEnvironmentPath?.(resource)?.path ?? api?.settings?.getExecutionDetails?.(resource)?.execCommand?.[0];
    return p ? { path: p } : { note: `${PYTHON_EXTENSION} (no environment selected)` };
  } catch (e) {
    return { note: `${PYTHON_EXTENSION} (${e instanceof Error ? e.message : String(e)})` };
  }
}

export const nodeProbe: Probe = {
  isExecutable(p) {
    try {
      const st = fs.statSync(p);
      if (!st.isFile()) return false;
      if (process.platform === 'win32') return true;
      fs.accessSync(p, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
  realpath(p) {
    try {
      return fs.realpathSync(p);
    } catch {
      return p;
    }
  },
  env: process.env,
  home: os.homedir(),
  platform: process.platform,
  python() {
    const resource = vscode.window?.activeTextEditor?.document.uri ?? vscode.workspace?.workspaceFolders?.[0]?.uri;
    return pythonSelection(vscode.extensions?.getExtension(PYTHON_EXTENSION), resource);
  },
};

function paths(probe: Probe): path.PlatformPath {
  return probe.platform === 'win32' ? path.win32 : path.posix;
}

function exeName(name: string, probe: Probe): string {
  return probe.platform === 'win32' ? `${name}.exe` : name;
}

function onPath(name: string, probe: Probe): string[] {
  const dirs = (probe.env.PATH ?? probe.env.Path ?? '').split(probe.platform === 'win32' ? ';' : ':');
  return dirs.filter((d) => d !== '').map((d) => paths(probe).join(d, name));
}

/**
 * The scripts folders of a Python environment, from its interpreter (a
 * venv's bin/ or Scripts\ holds both) or its folder. A base Windows or
 * conda install keeps python.exe at the top and the scripts in Scripts\.
 */
export function scriptsDirs(selected: string, probe: Probe): string[] {
  const p = paths(probe);
  const win = probe.platform === 'win32';
  if (/^python[\d.]*(\.exe)?$/i.test(p.basename(selected))) {
    const dir = p.dirname(selected);
    return win && p.basename(dir).toLowerCase() !== 'scripts' ? [dir, p.join(dir, 'Scripts')] : [dir];
  }
  return win ? [p.join(selected, 'Scripts'), selected] : [p.join(selected, 'bin')];
}

function search(candidates: { source: string; path: string; explicit?: boolean }[], probe: Probe, notes: string[] = []): Lookup {
  const tried: Candidate[] = [];
  const seen = new Set<string>();
  const withNotes = (l: Lookup): Lookup => (notes.length ? { ...l, notes } : l);
  for (const c of candidates) {
    if (seen.has(c.path)) continue;
    seen.add(c.path);
    const found = probe.isExecutable(c.path);
    const cand = { source: c.source, path: c.path, found };
    tried.push(cand);
    if (found) return withNotes({ path: c.path, tried });
    if (c.explicit) return withNotes({ tried, badExplicit: cand });
  }
  return withNotes({ tried });
}

/**
 * backyard.serverPath (an instruction: it wins, and one that names nothing
 * is an error), else bin/backyard-ls inside the extension (a platform
 * .vsix), else the scripts folder of the Python environment selected in the
 * Python extension, then of $VIRTUAL_ENV and $CONDA_PREFIX (where `pip
 * install backyard-ls` put it), else PATH.
 */
export function findServer(setting: string, extensionDir: string, probe: Probe = nodeProbe): Lookup {
  const p = paths(probe);
  const exe = exeName('backyard-ls', probe);
  const cands: { source: string; path: string; explicit?: boolean }[] = [];
  const notes: string[] = [];
  if (setting.trim() !== '') cands.push({ source: 'backyard.serverPath', path: expandHome(setting.trim(), probe), explicit: true });
  cands.push({ source: 'extension bin/', path: p.join(extensionDir, 'bin', exe) });
  const sel = probe.python?.() ?? {};
  if (sel.note) notes.push(sel.note);
  if (sel.path) for (const d of scriptsDirs(sel.path, probe)) cands.push({ source: 'Python environment', path: p.join(d, exe) });
  for (const v of ['VIRTUAL_ENV', 'CONDA_PREFIX']) {
    const dir = probe.env[v];
    if (dir) for (const d of scriptsDirs(dir, probe)) cands.push({ source: v, path: p.join(d, exe) });
  }
  for (const x of onPath(exe, probe)) cands.push({ source: 'PATH', path: x });
  return search(cands, probe, notes);
}

/** The worker in the server's order: backyard.montyPath, MONTY_BIN, next to the server, the install dir, PATH. */
export function findMonty(setting: string, serverPath: string | undefined, probe: Probe = nodeProbe): Lookup {
  const p = paths(probe);
  const exe = exeName('monty', probe);
  const cands: { source: string; path: string; explicit?: boolean }[] = [];
  if (setting.trim() !== '') cands.push({ source: 'backyard.montyPath', path: expandHome(setting.trim(), probe), explicit: true });
  const envBin = probe.env.MONTY_BIN;
  if (envBin) cands.push({ source: 'MONTY_BIN', path: envBin, explicit: true });
  // The server looks next to its own executable, symlinks resolved: the
  // environment it was installed into.
  if (serverPath) cands.push({ source: 'next to backyard-ls', path: p.join(p.dirname(probe.realpath(serverPath)), exe) });
  const data = probe.env.XDG_DATA_HOME || p.join(probe.home, '.local', 'share');
  cands.push({ source: 'install dir', path: p.join(data, 'backyard-ls', 'monty', 'bin', exe) });
  for (const x of onPath(exe, probe)) cands.push({ source: 'PATH', path: x });
  return search(cands, probe);
}

function expandHome(p: string, probe: Probe): string {
  return p === '~' || p.startsWith('~/') ? paths(probe).join(probe.home, p.slice(1)) : p;
}

/** "backyard.serverPath (/x/backyard-ls), extension bin/ (…), PATH" for messages. */
export function describeTried(l: Lookup): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const c of l.tried) {
    if (c.source === 'PATH') {
      if (!seen.has('PATH')) parts.push('PATH');
      seen.add('PATH');
      continue;
    }
    parts.push(`${c.source} (${c.path})`);
  }
  return [...parts, ...(l.notes ?? [])].join(', ');
}
