import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { displaysPage, mainMime, outputBody, richOutputs, richSummary } from '../../src/displays';
import { execution } from './fixtures';

describe('the displays view', () => {
  const x = execution({
    displays: [
      { data: { 'text/plain': '1' } },
      { data: { 'text/plain': '<HTML>', 'text/html': '<table><tr><td>Oslo</td></tr></table>' } },
      { data: { 'text/plain': '<Figure>', 'image/png': 'iVBO\nRw0=' }, afterResult: true },
    ],
    result: { text: '{}', mime: { 'text/plain': '{}', 'application/json': '{"a":[1]}' } },
  });

  it('takes the rich outputs in Jupyter’s order (a figure shown at the end after the value), text-only ones left out', () => {
    assert.deepEqual(
      richOutputs(x).map((o) => [mainMime(o.data), o.value]),
      [
        ['text/html', false],
        ['application/json', true],
        ['image/png', false],
      ],
    );
    assert.equal(richSummary(x), '[text/html, application/json, image/png]');
    assert.equal(richSummary(execution({ displays: [{ data: { 'text/plain': '1' } }] })), '');
  });

  it('renders each form: HTML as is, images and SVG as data: images, JSON indented, Markdown rendered or as text', () => {
    assert.equal(outputBody({ 'text/html': '<b>x</b>', 'text/plain': 'x' }), '<b>x</b>');
    assert.equal(outputBody({ 'image/png': 'iVBO\nRw0=' }), '<img alt="image/png" src="data:image/png;base64,iVBORw0=">');
    assert.equal(outputBody({ 'image/svg+xml': '<svg/>' }), `<img alt="SVG" src="data:image/svg+xml;base64,${Buffer.from('<svg/>').toString('base64')}">`);
    assert.equal(outputBody({ 'application/json': '{"a":1}' }), '<pre class="json">{\n  &#34;a&#34;: 1\n}</pre>');
    assert.equal(outputBody({ 'text/markdown': '**b**' }, '<p><strong>b</strong></p>'), '<p><strong>b</strong></p>');
    assert.equal(outputBody({ 'text/markdown': '<i>' }), '<pre>&#60;i&#62;</pre>');
    assert.equal(outputBody({ 'text/latex': '$x$' }), '<pre>$x$</pre>');
  });

  it('is a page that runs nothing and loads nothing', () => {
    const page = displaysPage('demo.py:3 · [1]', richOutputs(x));
    assert.match(page, /Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:"/);
    assert.match(page, /<h1>demo\.py:3 · \[1\]<\/h1>/);
    assert.match(page, /<section class="output" data-mime="text\/html"><h2>text\/html<\/h2><div class="body"><table>/);
    assert.match(page, /data-mime="application\/json"><h2>Out · application\/json<\/h2>/);
    assert.doesNotMatch(page, /<script/);
  });
});
