// test-webui-browser.mjs: odek's own browser UI against the real
// `plandeck-agent serve --webui`, driven in headless Chromium.
//
// usage: node test-webui-browser.mjs AGENT WEBUI_DIR
//
// A client nobody on this project wrote (../shared/clients/odek-webui,
// odek's cmd/odek/ui) is served by `serve --webui` the way odek serves it
// and used as a person would: the list, opening a session and reading its
// messages, rename, delete, a prompt over /ws with its answer, and a tool
// call approved (and one denied) in the UI's own dialog.  What the page
// shows is checked, and what the server stored is checked through its
// REST API and the working folder.
//
// The driver is playwright-core from the npm registry, kept in a cache
// (${XDG_CACHE_HOME:-~/.cache}/plandeck-tests/npm, installed on first use);
// the browser is the system's Chromium (apt's `chromium`, in
// build-aux/setup.sh).  The test skips with a note when the UI
// folder, Chromium or the driver is not there.  Prints TAP.

import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

const PLAYWRIGHT_VERSION = '1.65.1';
const WAIT_MS = 30000;

const agent = path.resolve (process.argv[2] || '');
const webui = path.resolve (process.argv[3] || '');

function skip (why) {
  // TAP's whole-plan skip: meson counts the test as skipped.
  console.log (`1..0 # SKIP ${why}`);
  process.exit (0);
}

let n = 0;
let failed = 0;
function check (ok, what, detail = '') {
  n++;
  console.log (`${ok ? 'ok' : 'not ok'} ${n} ${what}`);
  if (!ok) {
    failed++;
    for (const line of String (detail).replace (/\x1b\[[0-9;]*m/g, '').split ('\n').slice (0, 40))
      console.log (`# ${line}`);
  }
  return ok;
}

function findChromium () {
  const candidates = [process.env.PLANDECK_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find ((c) => c && fs.existsSync (c));
}

// playwright-core from the cache, installed there once (into a folder of
// its own first, so that a run cut short never leaves half a package).
function loadPlaywright () {
  const cacheHome = process.env.XDG_CACHE_HOME || path.join (os.homedir (), '.cache');
  const prefix = path.join (cacheHome, 'plandeck-tests', 'npm');
  const manifest = path.join (prefix, 'node_modules', 'playwright-core', 'package.json');
  const installed = () => {
    try {
      return JSON.parse (fs.readFileSync (manifest, 'utf8')).version === PLAYWRIGHT_VERSION;
    } catch {
      return false;
    }
  };

  if (!installed ()) {
    fs.mkdirSync (path.dirname (prefix), { recursive: true });
    const staging = fs.mkdtempSync (prefix + '.install-');
    // One small package with no dependencies: a few seconds when the
    // registry answers.  Where it cannot be reached (a machine without the
    // network, or one that drops the packets) the test skips within a minute
    // and a half instead of holding the run for npm's five-minute waits.
    const npm = spawnSync ('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--prefix', staging,
                                   '--fetch-timeout=30000', '--fetch-retries=1',
                                   `playwright-core@${PLAYWRIGHT_VERSION}`],
                           { encoding: 'utf8', timeout: 90000 });
    if (npm.status !== 0) {
      fs.rmSync (staging, { recursive: true, force: true });
      return { error: `npm could not install playwright-core@${PLAYWRIGHT_VERSION} into ${prefix}: ` +
                      `${(npm.stderr || npm.error || '').toString ().trim ().split ('\n').pop ()}` };
    }
    fs.rmSync (prefix, { recursive: true, force: true });
    try {
      fs.renameSync (staging, prefix);
    } catch {
      // Another run got there first.
      fs.rmSync (staging, { recursive: true, force: true });
    }
  }
  // The driver names the Node.js it needs; Debian 12's own is older than
  // the one this version asks for (NodeSource's is not).  An older Node
  // skips with the reason rather than failing inside the driver.
  const engines = JSON.parse (fs.readFileSync (manifest, 'utf8')).engines || {};
  const needed = /^>=\s*(\d+)/.exec (engines.node || '');
  const major = Number (process.versions.node.split ('.')[0]);
  if (needed && major < Number (needed[1]))
    return { error: `playwright-core@${PLAYWRIGHT_VERSION} needs Node.js ${engines.node}; this is ${process.versions.node}` };
  try {
    return { playwright: createRequire (path.join (prefix, 'index.js')) ('playwright-core') };
  } catch (e) {
    return { error: `playwright-core@${PLAYWRIGHT_VERSION} did not load: ${e.message}` };
  }
}

// A recorded model: each run of the seeded sessions answers at once.
const SEED = { label: 'browser test seeds', turns: [{ content: 'The seeded answer.', input_tokens: 5, output_tokens: 3 }] };
// Each run on serve writes a file (which asks the person), then answers.
const SERVED = {
  label: 'browser test runs',
  turns: [
    { tool_calls: [{ name: 'write_file', arguments: { path: 'from-browser.txt', content: 'written after approval\n' } }] },
    { content: 'Finished with from-browser.txt.', input_tokens: 9, output_tokens: 4 },
  ],
};

async function main () {
  if (!fs.existsSync (path.join (webui, 'index.html')) || !fs.existsSync (path.join (webui, 'app.js')))
    skip (`odek's browser UI is not at ${webui} (../shared/clients/odek-webui beside the source tree)`);
  const chromiumPath = findChromium ();
  if (!chromiumPath)
    skip ('no Chromium (apt install chromium, as build-aux/setup.sh does, or set PLANDECK_CHROMIUM)');
  const loaded = loadPlaywright ();
  if (loaded.error)
    skip (loaded.error);
  const { chromium } = loaded.playwright;

  const tmp = fs.mkdtempSync (path.join (os.tmpdir (), 'pd-webui-'));
  const env = { ...process.env };
  for (const v of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'HOME'])
    env[v] = tmp;
  for (const v of ['PLANDECK_PLANNING', 'PLANDECK_MODEL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY',
                   'http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY'])
    delete env[v];
  const work = path.join (tmp, 'work');
  fs.mkdirSync (work);
  const db = path.join (tmp, 'sessions.db');
  fs.writeFileSync (path.join (tmp, 'seed.json'), JSON.stringify (SEED));
  fs.writeFileSync (path.join (tmp, 'served.json'), JSON.stringify (SERVED));

  // Two sessions made by the CLI, as a person's earlier work.
  for (const task of ['Seed task one', 'Seed task two']) {
    const run = spawnSync (agent, ['run', '--db', db, '--provider', 'replay', '--replay', path.join (tmp, 'seed.json'),
                                   '--approve', 'deny', '-C', work, task],
                           { env, cwd: tmp, encoding: 'utf8', timeout: 60000 });
    check (run.status === 0 && run.stdout.includes ('The seeded answer.'), `the CLI seeds "${task}"`,
           `exit ${run.status}\n${run.stdout}\n${run.stderr}`);
  }

  const serveLog = fs.openSync (path.join (tmp, 'serve.log'), 'w');
  const server = spawn (agent, ['serve', '--db', db, '--listen', '127.0.0.1:0', '--webui', webui,
                                '--provider', 'replay', '--replay', path.join (tmp, 'served.json'), '-C', work],
                        { env, cwd: tmp, stdio: ['ignore', 'pipe', serveLog] });
  const serverGone = new Promise ((resolve) => server.on ('exit', resolve));
  let browser = null;

  try {
    const firstLine = await new Promise ((resolve, reject) => {
      const lines = readline.createInterface ({ input: server.stdout });
      lines.once ('line', resolve);
      server.once ('exit', (code) => reject (new Error (`serve exited with ${code}: ` +
                                                        fs.readFileSync (path.join (tmp, 'serve.log'), 'utf8'))));
    });
    const url = new URL (firstLine.trim ());
    const token = url.searchParams.get ('token');
    const base = `${url.protocol}//${url.host}`;
    check (token && url.hostname === '127.0.0.1', 'serve prints its URL with the instance token', firstLine);

    // What the server stores, read as a REST client would.
    const api = async (p, init = {}) => {
      const r = await fetch (base + p, { ...init, headers: { 'X-Odek-Ws-Token': token, ...(init.headers || {}) } });
      return { status: r.status, body: r.status === 200 ? await r.json () : null };
    };
    const listed = async () => (await api ('/api/sessions')).body || [];

    browser = await chromium.launch ({ executablePath: chromiumPath, headless: true });
    const context = await browser.newContext ();
    const page = await context.newPage ();
    const pageErrors = [];
    page.on ('pageerror', (e) => pageErrors.push (String (e)));
    const frames = [];
    page.on ('websocket', (ws) => {
      ws.on ('framereceived', (f) => {
        try { frames.push (JSON.parse (f.payload)); } catch { /* not ours to judge */ }
      });
    });
    const dialogs = [];
    page.on ('dialog', async (d) => {
      dialogs.push (d.message ());
      if (d.type () === 'prompt')
        await d.accept ('Renamed in the browser');
      else
        await d.dismiss ();
    });

    // The page, the token and the socket.
    await page.goto (`${base}/?token=${token}`);
    check (await page.getAttribute ('meta[name="odek-ws-token"]', 'content') === token,
           'the page carries the instance token');
    // No token cookie (odek sets one): a browser sends 127.0.0.1's cookies
    // to every port of it, another program's too. The page works without
    // it: the meta token goes as a header to /api and a subprotocol to /ws.
    const cookies = (await context.cookies ()).filter ((c) => c.value.includes (token));
    check (cookies.length === 0, 'no cookie carries the instance token', JSON.stringify (cookies));
    await page.waitForSelector ('#ws-dot.connected', { timeout: WAIT_MS });
    check (await page.isEnabled ('#send-btn'), 'the socket connects (the subprotocol echoed) and sending is enabled');

    // The list.
    await page.waitForFunction (() => document.querySelectorAll ('#session-list .session-item').length === 2,
                                null, { timeout: WAIT_MS });
    const tasks = await page.$$eval ('#session-list .session-item .task', (els) => els.map ((e) => e.textContent));
    check (tasks.includes ('Seed task one') && tasks.includes ('Seed task two'), 'the list shows both sessions',
           JSON.stringify (tasks));
    const row = (task) => page.locator ('#session-list .session-item', { has: page.locator ('.task', { hasText: task }) });
    const oneId = await row ('Seed task one').getAttribute ('data-id');
    const twoId = await row ('Seed task two').getAttribute ('data-id');

    // Open a session and see its messages, in order.
    await row ('Seed task one').click ();
    await page.waitForSelector ('#messages .msg.assistant', { timeout: WAIT_MS });
    const shown = await page.$$eval ('#messages .msg', (els) => els.map ((e) => `${e.className}: ${e.textContent.trim ()}`));
    check (shown.length === 2 && /user/.test (shown[0]) && shown[0].includes ('Seed task one')
           && /assistant/.test (shown[1]) && shown[1].includes ('The seeded answer.'),
           'opening a session shows its question and answer', JSON.stringify (shown));
    check (await page.evaluate ((id) => localStorage.getItem ('odek_session_token_' + id), oneId),
           'the session token is kept from the record');

    // Rename: the UI's own prompt dialog, the list and the store agree.
    await row ('Seed task one').locator ('.rename-btn').click ();
    await page.waitForFunction (() => [...document.querySelectorAll ('#session-list .task')]
                                        .some ((e) => e.textContent === 'Renamed in the browser'),
                                null, { timeout: WAIT_MS });
    const renamed = (await listed ()).find ((s) => s.id === oneId);
    check (renamed && renamed.task === 'Renamed in the browser', 'rename sets the task the list shows',
           JSON.stringify (renamed));

    // Delete, through the UI's confirmation.
    await row ('Seed task two').locator ('.del-btn').click ();
    await page.click ('#confirm-delete-btn');
    await page.waitForFunction (() => document.querySelectorAll ('#session-list .session-item').length === 1,
                                null, { timeout: WAIT_MS });
    check (!(await listed ()).some ((s) => s.id === twoId) && (await api (`/api/sessions/${twoId}`)).status === 404,
           'delete removes the session from the page and the store');

    // A prompt over /ws continuing the opened session: the write asks,
    // the UI's dialog approves, the answer comes.
    const written = path.join (work, 'from-browser.txt');
    const before = frames.length;
    await page.fill ('#prompt', 'Write the file, please');
    await page.press ('#prompt', 'Enter');
    await page.waitForSelector ('#approval-overlay.active', { timeout: WAIT_MS });
    const asked = await page.textContent ('#approval-command');
    check (asked.includes ('from-browser.txt') && asked.includes ('+ written after approval') && !fs.existsSync (written),
           'the write waits for approval in the UI\'s dialog, which shows what it writes', `${asked}; exists: ${fs.existsSync (written)}`);
    await page.click ('#approval-actions .approve');
    await page.waitForFunction (() => [...document.querySelectorAll ('#messages .msg.assistant')]
                                        .some ((e) => e.textContent.includes ('Finished with from-browser.txt.')),
                                null, { timeout: WAIT_MS });
    await page.waitForFunction (() => !document.getElementById ('send-btn').disabled, null, { timeout: WAIT_MS });
    check (fs.existsSync (written) && fs.readFileSync (written, 'utf8') === 'written after approval\n',
           'approved: the file is written');
    const turn = frames.slice (before);
    const types = turn.map ((f) => f.type);
    const session = turn.find ((f) => f.type === 'session');
    check (session && session.session_id === oneId, 'the prompt continues the opened session', JSON.stringify (session));
    check (types.filter ((t) => t === 'done' || t === 'error').length === 1 && types[types.length - 1] === 'done'
           && types.indexOf ('tool_call') < types.indexOf ('approval_request')
           && types.indexOf ('approval_request') < types.indexOf ('tool_result')
           && types.indexOf ('tool_result') < types.indexOf ('token'),
           'the frames: tool call, approval, result, the answer, one done', types.join (' '));
    const result = turn.find ((f) => f.type === 'tool_result');
    await page.waitForFunction (() => !!document.querySelector ('#messages .msg-stats'), null, { timeout: WAIT_MS });
    check (result && !/denied/i.test (result.data), 'the tool result is the write\'s', JSON.stringify (result));
    const record = await api (`/api/sessions/${oneId}`, {
      headers: { 'X-Session-Token': await page.evaluate ((id) => localStorage.getItem ('odek_session_token_' + id), oneId) },
    });
    const contents = (record.body?.messages || []).map ((m) => m.content);
    check (contents.includes ('Write the file, please') && contents.includes ('Finished with from-browser.txt.'),
           'the store holds the prompt and the answer in that session', JSON.stringify (contents));

    // A new session from the UI's ＋, and this time the write is denied.
    fs.rmSync (written);
    const beforeNew = frames.length;
    await page.click ('.new-session-btn');
    await page.fill ('#prompt', 'Write it again');
    await page.press ('#prompt', 'Enter');
    await page.waitForSelector ('#approval-overlay.active', { timeout: WAIT_MS });
    await page.click ('#approval-actions .deny');
    await page.waitForFunction (() => !document.getElementById ('send-btn').disabled
                                      && [...document.querySelectorAll ('#messages .msg.assistant')]
                                           .some ((e) => e.textContent.includes ('Finished with')),
                                null, { timeout: WAIT_MS });
    const denied = frames.slice (beforeNew).find ((f) => f.type === 'tool_result');
    check (!fs.existsSync (written) && denied && /denied/i.test (denied.data),
           'denied: nothing written, and the tool result says so', JSON.stringify (denied));
    await page.waitForFunction (() => document.querySelectorAll ('#session-list .session-item').length === 2,
                                null, { timeout: WAIT_MS });
    const fresh = frames.slice (beforeNew).find ((f) => f.type === 'session');
    check (fresh && fresh.session_id !== oneId && (await listed ()).some ((s) => s.id === fresh.session_id
                                                                          && s.task === 'Write it again'),
           'the new session is in the list with its task', JSON.stringify (fresh));

    check (pageErrors.length === 0, 'the page threw nothing', pageErrors.join ('\n'));
    console.log (`# dialogs: ${JSON.stringify (dialogs)}`);
  } catch (e) {
    check (false, 'the browser run ended early', e.stack || String (e));
  } finally {
    if (browser)
      await browser.close ();
    server.kill ('SIGTERM');
    const code = await Promise.race ([serverGone, new Promise ((r) => setTimeout (() => r ('timeout'), 20000))]);
    if (code === 'timeout')
      server.kill ('SIGKILL');
    const log = fs.readFileSync (path.join (tmp, 'serve.log'), 'utf8');
    check (!/CRITICAL|WARNING/.test (log), 'serve logged no warning', log);
    fs.rmSync (tmp, { recursive: true, force: true });
  }

  console.log (`1..${n}`);
  process.exit (failed ? 1 : 0);
}

main ();
