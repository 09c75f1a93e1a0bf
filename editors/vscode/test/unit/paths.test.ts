import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeTried, findMonty, findServer, type Probe } from '../../src/paths';

function probe(executables: string[], env: Record<string, string> = {}, links: Record<string, string> = {}): Probe {
  return {
    isExecutable: (p) => executables.includes(p),
    realpath: (p) => links[p] ?? p,
    env: { PATH: '/usr/local/bin:/usr/bin', ...env },
    home: '/home/u',
    platform: 'linux',
  };
}

describe('findServer', () => {
  it('prefers the setting, then the extension bin/, then PATH', () => {
    const all = ['/opt/backyard-ls', '/ext/bin/backyard-ls', '/usr/bin/backyard-ls'];
    assert.equal(findServer('/opt/backyard-ls', '/ext', probe(all)).path, '/opt/backyard-ls');
    assert.equal(findServer('', '/ext', probe(all)).path, '/ext/bin/backyard-ls');
    assert.equal(findServer('', '/ext', probe(['/usr/bin/backyard-ls'])).path, '/usr/bin/backyard-ls');
    assert.equal(findServer('~/bin/backyard-ls', '/ext', probe(['/home/u/bin/backyard-ls'])).path, '/home/u/bin/backyard-ls');
  });
  it('does not fall back when the setting names no executable, and says where it looked', () => {
    const l = findServer('/typo', '/ext', probe(['/usr/bin/backyard-ls']));
    assert.equal(l.path, undefined);
    assert.equal(l.badExplicit?.path, '/typo');
    const none = findServer('', '/ext', probe([]));
    assert.equal(none.path, undefined);
    assert.equal(describeTried(none), 'extension bin/ (/ext/bin/backyard-ls), PATH');
  });
});

describe('findMonty', () => {
  const install = '/home/u/.local/share/backyard-ls/monty/bin/monty';
  it('searches in the server order: setting, MONTY_BIN, install dir, next to the server, PATH', () => {
    const all = ['/s/monty', '/env/monty', install, '/real/monty', '/usr/bin/monty'];
    assert.equal(findMonty('/s/monty', '/srv/backyard-ls', probe(all, { MONTY_BIN: '/env/monty' })).path, '/s/monty');
    assert.equal(findMonty('', '/srv/backyard-ls', probe(all, { MONTY_BIN: '/env/monty' })).path, '/env/monty');
    assert.equal(findMonty('', '/srv/backyard-ls', probe(all)).path, install);
    const noInstall = all.filter((p) => p !== install);
    assert.equal(findMonty('', '/srv/backyard-ls', probe(noInstall, {}, { '/srv/backyard-ls': '/real/backyard-ls' })).path, '/real/monty');
    assert.equal(findMonty('', undefined, probe(['/usr/bin/monty'])).path, '/usr/bin/monty');
  });
  it('honours XDG_DATA_HOME and reports a MONTY_BIN that names nothing', () => {
    assert.equal(findMonty('', undefined, probe(['/xdg/backyard-ls/monty/bin/monty'], { XDG_DATA_HOME: '/xdg' })).path, '/xdg/backyard-ls/monty/bin/monty');
    const bad = findMonty('', undefined, probe([install], { MONTY_BIN: '/nope' }));
    assert.equal(bad.path, undefined);
    assert.equal(bad.badExplicit?.source, 'MONTY_BIN');
  });
});
