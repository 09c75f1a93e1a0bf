// backyard.* settings: what the server gets (initializationOptions and
// answers to workspace/configuration carry the same object) and what only
// the extension uses. The settings, their defaults and which of them the
// server reads are generated from the Go declaration (settingSpecs). Pure
// over a getter so it is tested without VS Code.

import { settingSpecs, type InlineResults, type InstallPolicy, type ServerSettings } from './contract.gen';

export type Get = <T>(key: string, fallback: T) => T;
export type AutoInstall = InstallPolicy;
export type { InlineResults, ServerSettings };

/** Default of every contributed setting, by key without "backyard.". */
export const defaults: Record<string, string | number | boolean | readonly string[]> = Object.fromEntries(settingSpecs.map((s) => [s.key, s.default]));

/** A valid off|ask|on policy; anything else is the default, off. */
export function autoInstallPolicy(mode: string): AutoInstall {
  return mode === 'on' || mode === 'ask' ? mode : 'off';
}

/** The backyard.* section as the server reads it: only the keys it knows (not serverPath, inlineResults, trace), nested at their dots. */
export function serverSettings(get: Get): ServerSettings {
  const out: Record<string, unknown> = {};
  for (const s of settingSpecs) {
    if (!s.server) continue;
    let v: unknown = get(s.key, s.default);
    if (typeof v === 'string') v = v.trim();
    if (s.key === 'autoInstall') v = autoInstallPolicy(String(v));
    const parts = s.key.split('.');
    let at = out;
    for (const p of parts.slice(0, -1)) at = (at[p] ??= {}) as Record<string, unknown>;
    at[parts[parts.length - 1]!] = v;
  }
  return out as unknown as ServerSettings;
}

/** The payload of initializationOptions. */
export function serverPayload(get: Get): { backyard: ServerSettings } {
  return { backyard: serverSettings(get) };
}

export function inlineResults(get: Get): InlineResults {
  const v = get<string>('inlineResults', 'decorations');
  return v === 'inlayHints' || v === 'off' ? v : 'decorations';
}
