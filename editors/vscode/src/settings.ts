// backyard.* settings: what the server gets (initializationOptions and
// workspace/didChangeConfiguration carry the same object) and what only the
// extension uses. Pure over a getter so it is tested without VS Code.

export type Get = <T>(key: string, fallback: T) => T;

export type AutoInstall = 'off' | 'ask' | 'on';
export type InlineResults = 'decorations' | 'inlayHints' | 'off';

/** The settings object the server parses (lsp/settings.go), nested under "backyard". */
export interface ServerSettings {
  backend: string;
  timeout: number;
  memory: number;
  recursionLimit: number;
  maxOutputBytes: number;
  montyPath: string;
  autoInstall: AutoInstall;
  indexUrl: string;
  findLinks: string;
  prewarm: boolean;
  container: {
    image: string;
    runtime: string;
    network: string;
    mountWorkspace: boolean;
  };
}

/** Defaults of the contributed settings in package.json. */
export const defaults = {
  backend: 'auto',
  timeout: 30,
  memory: 256,
  recursionLimit: 1000,
  maxOutputBytes: 1048576,
  montyPath: '',
  autoInstall: 'off' as AutoInstall,
  indexUrl: '',
  findLinks: '',
  prewarm: true,
  'container.image': 'python:3.13-slim',
  'container.runtime': '',
  'container.network': 'none',
  'container.mountWorkspace': true,
};

/** A valid off|ask|on policy; anything else is the default, off. */
export function autoInstallPolicy(mode: string): AutoInstall {
  return mode === 'on' || mode === 'ask' ? mode : 'off';
}

/** The backyard.* section as the server reads it. Only keys it knows are sent (not serverPath, inlineResults, trace). */
export function serverSettings(get: Get): ServerSettings {
  return {
    backend: get('backend', defaults.backend),
    timeout: get('timeout', defaults.timeout),
    memory: get('memory', defaults.memory),
    recursionLimit: get('recursionLimit', defaults.recursionLimit),
    maxOutputBytes: get('maxOutputBytes', defaults.maxOutputBytes),
    montyPath: get('montyPath', defaults.montyPath).trim(),
    autoInstall: autoInstallPolicy(get<string>('autoInstall', defaults.autoInstall)),
    indexUrl: get('indexUrl', defaults.indexUrl).trim(),
    findLinks: get('findLinks', defaults.findLinks).trim(),
    prewarm: get('prewarm', defaults.prewarm),
    container: {
      image: get('container.image', defaults['container.image']),
      runtime: get('container.runtime', defaults['container.runtime']),
      network: get('container.network', defaults['container.network']),
      mountWorkspace: get('container.mountWorkspace', defaults['container.mountWorkspace']),
    },
  };
}

/** The payload of initializationOptions and of didChangeConfiguration's settings. */
export function serverPayload(get: Get): { backyard: ServerSettings } {
  return { backyard: serverSettings(get) };
}

export function inlineResults(get: Get): InlineResults {
  const v = get<string>('inlineResults', 'decorations');
  return v === 'inlayHints' || v === 'off' ? v : 'decorations';
}
