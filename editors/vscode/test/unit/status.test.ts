import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { KernelStatus, pickBackendCommand, statusText } from '../../src/status';
import { mock } from '../mock/vscode';

describe('status bar', () => {
  beforeEach(() => mock.reset());
  it('shows backend, runtime and state', () => {
    assert.equal(statusText({ backend: 'monty', runtime: '', state: 'idle' }, 'a.py').text, '$(circle-outline) monty · idle');
    assert.equal(statusText({ backend: 'container', runtime: 'runsc', state: 'busy' }, 'a.py').text, '$(sync~spin) container · runsc · busy');
    assert.match(statusText(undefined, 'a.py').tooltip, /no kernel yet/);
  });
  it('follows kernelState and kernelInfo for the active document only, and opens the backend picker', () => {
    const s = new KernelStatus();
    const item = mock.state.statusItems[0]!;
    assert.equal(item.command, pickBackendCommand);
    s.setActive('file:///a.py', 'a.py');
    assert.equal(item.visible, true);
    s.onKernelState({ uri: 'file:///a.py', backend: 'monty', runtime: '', state: 'starting' });
    assert.equal(item.text, '$(loading~spin) monty · starting');
    s.onKernelState({ uri: 'file:///b.py', backend: 'container', runtime: 'runc', state: 'busy' });
    assert.equal(item.text, '$(loading~spin) monty · starting');
    s.onKernelInfo('file:///a.py', { backend: 'monty', runtime: '', state: 'idle', executionCount: 3, notes: ['moved to a container'] });
    assert.equal(item.text, '$(circle-outline) monty · idle');
    assert.match(item.tooltip!, /3 executions/);
    assert.match(item.tooltip!, /moved to a container/);
    s.setActive(undefined);
    assert.equal(item.visible, false);
  });
  it('says where the cells write files', () => {
    assert.equal(statusText({ backend: 'monty', runtime: '', state: 'idle', write: 'workspace' }, 'a.py').text, '$(circle-outline) monty · idle · writes files');
    assert.match(statusText({ backend: 'monty', runtime: '', state: 'idle', write: 'workspace' }, 'a.py').tooltip, /real files/);
    const sandbox = statusText({ backend: 'monty', runtime: '', state: 'idle', write: 'sandbox' }, 'a.py');
    assert.equal(sandbox.text, '$(circle-outline) monty · idle');
    assert.match(sandbox.tooltip, /stays in the kernel/);
  });
});
