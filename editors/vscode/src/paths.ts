// Finding the two binaries: the server (setting, the extension's bin/, PATH)
// and the Monty worker, searched in the server's own order (monty/find.go)
// so the extension can tell the user before the first run fails.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface Probe {
  isExecutable(p: string): boolean;
  realpath(p: string): string;
  env: Record<string, string | undefined>;
  home: string;
  platform: NodeJS.Platform;
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
  /** Set when an explicit path (a setting, MONTY_BIN) names no executable: that is an error, not a fallback. */
  badExplicit?: Candidate;
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
};

function onPath(name: string, probe: Probe): string[] {
  const dirs = (probe.env.PATH ?? probe.env.Path ?? '').split(probe.platform === 'win32' ? ';' : ':');
  return dirs.filter((d) => d !== '').map((d) => path.join(d, name));
}

function search(candidates: { source: string; path: string; explicit?: boolean }[], probe: Probe): Lookup {
  const tried: Candidate[] = [];
  for (const c of candidates) {
    const found = probe.isExecutable(c.path);
    const cand = { source: c.source, path: c.path, found };
    tried.push(cand);
    if (found) return { path: c.path, tried };
    if (c.explicit) return { tried, badExplicit: cand };
  }
  return { tried };
}

/** backyard.serverPath, else bin/backyard-ls inside the extension, else PATH. */
export function findServer(setting: string, extensionDir: string, probe: Probe = nodeProbe): Lookup {
  const exe = probe.platform === 'win32' ? 'backyard-ls.exe' : 'backyard-ls';
  const cands: { source: string; path: string; explicit?: boolean }[] = [];
  if (setting.trim() !== '') cands.push({ source: 'backyard.serverPath', path: expandHome(setting.trim(), probe), explicit: true });
  cands.push({ source: 'extension bin/', path: path.join(extensionDir, 'bin', exe) });
  for (const p of onPath(exe, probe)) cands.push({ source: 'PATH', path: p });
  return search(cands, probe);
}

/** The worker in the server's order: backyard.montyPath, MONTY_BIN, the install dir, next to the server, PATH. */
export function findMonty(setting: string, serverPath: string | undefined, probe: Probe = nodeProbe): Lookup {
  const cands: { source: string; path: string; explicit?: boolean }[] = [];
  if (setting.trim() !== '') cands.push({ source: 'backyard.montyPath', path: expandHome(setting.trim(), probe), explicit: true });
  const envBin = probe.env.MONTY_BIN;
  if (envBin) cands.push({ source: 'MONTY_BIN', path: envBin, explicit: true });
  const data = probe.env.XDG_DATA_HOME || path.join(probe.home, '.local', 'share');
  cands.push({ source: 'install dir', path: path.join(data, 'backyard-ls', 'monty', 'bin', 'monty') });
  // The server looks next to its own executable, symlinks resolved.
  if (serverPath) cands.push({ source: 'next to backyard-ls', path: path.join(path.dirname(probe.realpath(serverPath)), 'monty') });
  for (const p of onPath('monty', probe)) cands.push({ source: 'PATH', path: p });
  return search(cands, probe);
}

function expandHome(p: string, probe: Probe): string {
  return p === '~' || p.startsWith('~/') ? path.join(probe.home, p.slice(1)) : p;
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
  return parts.join(', ');
}
