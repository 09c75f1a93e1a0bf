import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { autoInstallPolicy, defaults, inlineResults, serverPayload, type Get } from '../../src/settings';

const getter =
  (values: Record<string, unknown>): Get =>
  <T>(key: string, fallback: T): T =>
    (key in values ? values[key] : fallback) as T;

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const props: Record<string, { default: unknown; enum?: unknown[] }> = manifest.contributes.configuration.properties;

describe('settings → initializationOptions', () => {
  it('sends the server shape, nested under backyard, with the defaults', () => {
    assert.deepEqual(serverPayload(getter({})), {
      backyard: {
        backend: 'auto',
        timeout: 30,
        memory: 256,
        recursionLimit: 1000,
        maxOutputBytes: 1048576,
        montyPath: '',
        autoInstall: 'off',
        indexUrl: '',
        findLinks: '',
        prewarm: true,
        container: { image: 'python:3.13-slim', runtime: '', network: 'none', mountWorkspace: true, warmPool: 1 },
        files: { broadWorkspace: false, hide: defaults['files.hide'], write: 'sandbox' },
      },
    });
    assert.ok((defaults['files.hide'] as readonly string[]).includes('.env'));
  });
  it('sends autoInstall as the server reads it: off|ask|on, anything else off', () => {
    assert.deepEqual(['off', 'ask', 'on', 'always'].map(autoInstallPolicy), ['off', 'ask', 'on', 'off']);
  });
  it('carries every value the user set, trims montyPath and leaves out editor-only settings', () => {
    const p = serverPayload(
      getter({
        backend: 'container',
        timeout: 5,
        memory: 512,
        recursionLimit: 200,
        maxOutputBytes: 4096,
        montyPath: '  /opt/monty  ',
        autoInstall: 'ask',
        'container.image': 'python:3.12-slim',
        'container.runtime': 'runsc',
        'container.network': 'bridge',
        'container.mountWorkspace': false,
        'files.hide': ['.env', 'secrets'],
        'files.write': 'workspace',
        serverPath: '/x/backyard-ls',
        inlineResults: 'off',
      }),
    );
    assert.deepEqual(p, {
      backyard: {
        backend: 'container',
        timeout: 5,
        memory: 512,
        recursionLimit: 200,
        maxOutputBytes: 4096,
        montyPath: '/opt/monty',
        autoInstall: 'ask',
        indexUrl: '',
        findLinks: '',
        prewarm: true,
        container: { image: 'python:3.12-slim', runtime: 'runsc', network: 'bridge', mountWorkspace: false, warmPool: 1 },
        files: { broadWorkspace: false, hide: ['.env', 'secrets'], write: 'workspace' },
      },
    });
  });
  it('has the same defaults as the contributed settings', () => {
    for (const [k, v] of Object.entries(defaults)) assert.deepEqual(props[`backyard.${k}`]?.default, v, k);
  });
  it('documents every setting the brief lists', () => {
    for (const k of ['backend', 'timeout', 'memory', 'recursionLimit', 'maxOutputBytes', 'montyPath', 'serverPath', 'container.image', 'container.runtime', 'container.network', 'container.mountWorkspace', 'autoInstall', 'indexUrl', 'findLinks', 'prewarm', 'files.hide', 'files.write']) {
      assert.ok(props[`backyard.${k}`], k);
    }
    assert.deepEqual(props['backyard.autoInstall']!.enum, ['off', 'ask', 'on']);
  });
  it('reads inlineResults, falling back to decorations', () => {
    assert.equal(inlineResults(getter({})), 'decorations');
    assert.equal(inlineResults(getter({ inlineResults: 'inlayHints' })), 'inlayHints');
    assert.equal(inlineResults(getter({ inlineResults: 'bogus' })), 'decorations');
  });
});
