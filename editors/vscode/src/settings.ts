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
  /** The server reads a boolean today (lsp/settings.go); "ask" is its default, sent as null. */
  autoInstall: boolean | null;
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
  'container.image': 'python:3.13-slim',
  'container.runtime': '',
  'container.network': 'none',
  'container.mountWorkspace': true,
};

/** The extension's off|ask|on as the server's boolean: on → true, off → false, ask → null (the server's default). */
export function autoInstallForServer(mode: string): boolean | null {
  return mode === 'on' ? true : mode === 'off' ? false : null;
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
    autoInstall: autoInstallForServer(get<string>('autoInstall', defaults.autoInstall)),
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
