import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { describeTried, findMonty, findServer, nodeProbe, pythonSelection, type Probe, type PythonSelection } from '../../src/paths';

function probe(executables: string[], env: Record<string, string> = {}, links: Record<string, string> = {}, python?: PythonSelection): Probe {
  return {
    isExecutable: (p) => executables.includes(p),
    realpath: (p) => links[p] ?? p,
    env: { PATH: '/usr/local/bin:/usr/bin', ...env },
    home: '/home/u',
    platform: 'linux',
    python: () => python ?? {},
  };
}

/** An active Python extension whose environments API has `selected` selected. */
function pythonExtension(selected: string | undefined) {
  return { isActive: true, exports: { environments: { getActiveEnvironmentPath: () => ({ id: selected, path: selected }) } } };
}

describe('findServer', () => {
  it('prefers the setting, then the extension bin/, the Python environment, VIRTUAL_ENV, CONDA_PREFIX, then PATH', () => {
    const all = ['/opt/backyard-ls', '/ext/bin/backyard-ls', '/proj/.venv/bin/backyard-ls', '/venv/bin/backyard-ls', '/conda/bin/backyard-ls', '/usr/bin/backyard-ls'];
    const env = { VIRTUAL_ENV: '/venv', CONDA_PREFIX: '/conda' };
    const sel = { path: '/proj/.venv/bin/python' };
    const order = [...all];
    while (order.length > 0) {
      const setting = order[0] === '/opt/backyard-ls' ? '/opt/backyard-ls' : '';
      assert.equal(findServer(setting, '/ext', probe(order, env, {}, sel)).path, order[0]);
      order.shift();
    }
    assert.equal(findServer('~/bin/backyard-ls', '/ext', probe(['/home/u/bin/backyard-ls'])).path, '/home/u/bin/backyard-ls');
  });
  it('does not fall back when the setting names no executable, and says where it looked', () => {
    const l = findServer('/typo', '/ext', probe(['/usr/bin/backyard-ls']));
    assert.equal(l.path, undefined);
    assert.equal(l.badExplicit?.path, '/typo');
    const none = findServer('', '/ext', probe([], { VIRTUAL_ENV: '/venv' }, {}, { path: '/proj/.venv/bin/python3.12' }));
    assert.equal(none.path, undefined);
    assert.equal(
      describeTried(none),
      'extension bin/ (/ext/bin/backyard-ls), Python environment (/proj/.venv/bin/backyard-ls), VIRTUAL_ENV (/venv/bin/backyard-ls), PATH',
    );
    const waiting = findServer('', '/ext', probe([], {}, {}, pythonSelection({ isActive: false })));
    assert.equal(describeTried(waiting), 'extension bin/ (/ext/bin/backyard-ls), PATH, ms-python.python (not active yet)');
  });
  it('reads the selection from the Python extension: the environments API, the older settings API, an environment folder', () => {
    assert.deepEqual(pythonSelection(undefined), {});
    assert.deepEqual(pythonSelection(pythonExtension('/p/.venv/bin/python')), { path: '/p/.venv/bin/python' });
    assert.deepEqual(pythonSelection({ isActive: true, exports: { settings: { getExecutionDetails: () => ({ execCommand: ['/old/bin/python'] }) } } }), { path: '/old/bin/python' });
    assert.deepEqual(pythonSelection(pythonExtension(undefined)), { note: 'ms-python.python (no environment selected)' });
    const broken = { isActive: true, exports: { environments: { getActiveEnvironmentPath: () => { throw new Error('boom'); } } } };
    assert.deepEqual(pythonSelection(broken), { note: 'ms-python.python (boom)' });
    // A conda environment without python is given as its folder.
    assert.equal(findServer('', '/ext', probe(['/envs/x/bin/backyard-ls'], {}, {}, { path: '/envs/x' })).path, '/envs/x/bin/backyard-ls');
  });
  it('on Windows: .exe, Scripts\\ of a venv and of a base install', () => {
    const win = (exes: string[], sel: string): Probe => ({ ...probe(exes, { PATH: 'C:\\bin' }, {}, { path: sel }), platform: 'win32' });
    assert.equal(findServer('', 'C:\\ext', win(['C:\\p\\.venv\\Scripts\\backyard-ls.exe'], 'C:\\p\\.venv\\Scripts\\python.exe')).path, 'C:\\p\\.venv\\Scripts\\backyard-ls.exe');
    assert.equal(findServer('', 'C:\\ext', win(['C:\\Py312\\Scripts\\backyard-ls.exe'], 'C:\\Py312\\python.exe')).path, 'C:\\Py312\\Scripts\\backyard-ls.exe');
    assert.equal(findServer('', 'C:\\ext', win(['C:\\ext\\bin\\backyard-ls.exe'], 'C:\\Py312\\python.exe')).path, 'C:\\ext\\bin\\backyard-ls.exe');
  });
  it('finds backyard-ls in a real venv selected in the Python extension, with nothing on PATH (venv)', () => {
    // $BACKYARD_TEST_VENV: a venv that `pip install backyard-ls` filled
    // (scripts/test-install.sh); else a fresh venv with a stand-in server.
    let venv = process.env.BACKYARD_TEST_VENV;
    let made: string | undefined;
    if (!venv) {
      made = fs.mkdtempSync(path.join(os.tmpdir(), 'backyard-venv-'));
      venv = path.join(made, 'venv');
      execFileSync('python3', ['-m', 'venv', '--without-pip', venv]);
      fs.writeFileSync(path.join(venv, 'bin', 'backyard-ls'), '#!/bin/sh\necho backyard-ls 0.0.0-stand-in\n', { mode: 0o755 });
    }
    try {
      const python = path.join(venv, 'bin', 'python');
      const real: Probe = { ...nodeProbe, env: { PATH: '' }, python: () => pythonSelection(pythonExtension(python)) };
      const l = findServer('', path.join(venv, 'no-extension'), real);
      assert.equal(l.path, path.join(venv, 'bin', 'backyard-ls'));
      assert.equal(l.tried.at(-1)?.source, 'Python environment');
      assert.match(execFileSync(l.path!, ['version'], { encoding: 'utf8' }), /^backyard-ls \d/);
      // $VIRTUAL_ENV alone, as when VS Code starts from an activated shell.
      const fromEnv: Probe = { ...nodeProbe, env: { PATH: '', VIRTUAL_ENV: venv }, python: () => ({}) };
      assert.equal(findServer('', path.join(venv, 'no-extension'), fromEnv).path, path.join(venv, 'bin', 'backyard-ls'));
    } finally {
      if (made) fs.rmSync(made, { recursive: true, force: true });
    }
  });
});

describe('findMonty', () => {
  const install = '/home/u/.local/share/backyard-ls/monty/bin/monty';
  it('searches in the server order: setting, MONTY_BIN, next to the server, install dir, PATH', () => {
    const all = ['/s/monty', '/env/monty', '/real/monty', install, '/usr/bin/monty'];
    const links = { '/srv/backyard-ls': '/real/backyard-ls' };
    assert.equal(findMonty('/s/monty', '/srv/backyard-ls', probe(all, { MONTY_BIN: '/env/monty' }, links)).path, '/s/monty');
    assert.equal(findMonty('', '/srv/backyard-ls', probe(all, { MONTY_BIN: '/env/monty' }, links)).path, '/env/monty');
    // The server's own environment (symlinks resolved) before the install dir.
    assert.equal(findMonty('', '/srv/backyard-ls', probe(all, {}, links)).path, '/real/monty');
    const noEnv = all.filter((p) => p !== '/real/monty');
    assert.equal(findMonty('', '/srv/backyard-ls', probe(noEnv, {}, links)).path, install);
    assert.equal(findMonty('', undefined, probe(['/usr/bin/monty'])).path, '/usr/bin/monty');
  });
  it('honours XDG_DATA_HOME and reports a MONTY_BIN that names nothing', () => {
    assert.equal(findMonty('', undefined, probe(['/xdg/backyard-ls/monty/bin/monty'], { XDG_DATA_HOME: '/xdg' })).path, '/xdg/backyard-ls/monty/bin/monty');
    const bad = findMonty('', undefined, probe([install], { MONTY_BIN: '/nope' }));
    assert.equal(bad.path, undefined);
    assert.equal(bad.badExplicit?.source, 'MONTY_BIN');
  });
});
