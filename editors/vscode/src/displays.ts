// A run's rich outputs (its display outputs and its value's MIME bundle) as
// the displays view renders them: HTML, Markdown, SVG, images and JSON in a
// webview, each under the MIME type it shows. Pure: the page is a string,
// so what it holds is unit-tested; displayPanel.ts shows it.

import { isPayload, type Display, type Execution } from './protocol';

/** One output of a run as the view shows it: its bundle, and whether it is the value (Out[n]). */
export interface RichOutput {
  data: Record<string, string>;
  value: boolean;
}

/** The forms the view renders, richest first: an output shows the first one its bundle has. */
export const renderedMimes = ['text/html', 'image/svg+xml', 'image/png', 'image/jpeg', 'image/gif', 'text/markdown', 'application/json', 'text/latex'] as const;

const images = new Set(['image/png', 'image/jpeg', 'image/gif']);

/** The MIME type an output is shown as: the richest form it has, else text/plain. */
export function mainMime(data: Record<string, string>): string {
  return renderedMimes.find((m) => data[m] !== undefined) ?? 'text/plain';
}

/** The run's outputs with a form richer than text, in the order Jupyter lists them (displays, the value, the displays shown after it). */
export function richOutputs(x: Execution | undefined): RichOutput[] {
  if (!x) return [];
  const shown = (after: boolean): RichOutput[] => (x.displays ?? []).filter((d: Display) => !isPayload(d) && !!d.afterResult === after).map((d) => ({ data: d.data, value: false }));
  const out = shown(false);
  if (x.result?.mime) out.push({ data: x.result.mime, value: true });
  out.push(...shown(true));
  return out.filter((o) => mainMime(o.data) !== 'text/plain');
}

/** "[text/html, image/png]": the MIME types a run's rich outputs show as, once each; "" when it has none. */
export function richSummary(x: Execution | undefined): string {
  const mimes = [...new Set(richOutputs(x).map((o) => mainMime(o.data)))];
  return mimes.length ? `[${mimes.join(', ')}]` : '';
}

function escape(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The body of one output in its main form; markdown is the Markdown already rendered to HTML (undefined: shown as text). */
export function outputBody(data: Record<string, string>, markdown?: string): string {
  const mime = mainMime(data);
  const v = data[mime] ?? '';
  if (mime === 'text/html') return v;
  if (mime === 'text/markdown') return markdown ?? `<pre>${escape(v)}</pre>`;
  // SVG as an image: its scripts and links never run.
  if (mime === 'image/svg+xml') return `<img alt="SVG" src="data:image/svg+xml;base64,${Buffer.from(v, 'utf8').toString('base64')}">`;
  if (images.has(mime)) return `<img alt="${mime}" src="data:${mime};base64,${v.replace(/\s+/g, '')}">`;
  if (mime === 'application/json') {
    let text = v;
    try {
      text = JSON.stringify(JSON.parse(v), null, 2);
    } catch {
      // shown as it came
    }
    return `<pre class="json">${escape(text)}</pre>`;
  }
  return `<pre>${escape(v)}</pre>`;
}

/**
 * The view's page: a heading naming the run, then each rich output under
 * its MIME type. Nothing in it runs: the policy allows no script, no
 * request, only inline styles and data: images (cells are untrusted, as a
 * notebook Jupyter has not trusted).
 */
export function displaysPage(title: string, outputs: readonly RichOutput[], markdown: readonly (string | undefined)[] = []): string {
  const sections = outputs.map((o, i) => {
    const mime = mainMime(o.data);
    const label = o.value ? `Out · ${mime}` : mime;
    return `<section class="output" data-mime="${escape(mime)}"><h2>${escape(label)}</h2><div class="body">${outputBody(o.data, markdown[i])}</div></section>`;
  });
  const csp = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:";
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<style>
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); }
h1 { font-size: 1.1em; } h2 { font-size: 0.85em; opacity: 0.7; font-weight: normal; margin: 1.2em 0 0.4em; }
.body { overflow: auto; } img { max-width: 100%; background: white; }
table { border-collapse: collapse; } th, td { border: 1px solid var(--vscode-panel-border, #8884); padding: 2px 8px; }
pre { white-space: pre-wrap; }
</style></head>
<body><main id="backyard-displays"><h1>${escape(title)}</h1>
${sections.join('\n')}
</main></body></html>`;
}
