// Opens a page `ctxhooks view` wrote in headless Chromium and prints, as one JSON object, what a
// person sees there: the messages, the compaction dividers, the tool calls, the interrupts, the
// context curve, what the filter box leaves shown, whether anything a transcript held ran, and
// every request that tried to leave the page. The Rust test (tests/integration/e2e_browser.rs)
// judges it; this script asserts nothing.
//
// node view-browser.js PAGE SCREENSHOT [WORD] (PLAYWRIGHT_CORE names playwright-core's folder,
// CHROMIUM the browser, VIEW_PROFILE a fresh profile folder)
'use strict';

const path = require('path');
const { chromium } = require(process.env.PLAYWRIGHT_CORE);

// Ticks or clears a box by a real click, as Playwright's `setChecked` does, and clicks again (at
// most twice more, 100 ms apart) when the click left the box as it was: on a loaded machine a
// click can land while the page still lays out what the previous filter hid (CI saw it once). A
// box the page never lets change still fails, with Playwright's own error.
async function setBox(page, selector, checked) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await page.setChecked(selector, checked);
      return;
    } catch (error) {
      if (attempt >= 2 || !String(error).includes('did not change its state')) throw error;
      await page.waitForTimeout(100);
    }
  }
}

async function main() {
  const [page_path, screenshot, word] = process.argv.slice(2);
  const context = await chromium.launchPersistentContext(process.env.VIEW_PROFILE, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
    viewport: { width: 1200, height: 900 },
  });
  const page = context.pages()[0] || (await context.newPage());
  const left = [];
  const errors = [];
  context.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith('file:') && !url.startsWith('data:')) left.push(url);
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  const started = Date.now();
  await page.goto('file://' + path.resolve(page_path), { waitUntil: 'load' });
  const load_ms = Date.now() - started;
  // What a person sees is the page once drawn: until its first frames, Chromium has not yet
  // decided which `content-visibility: auto` groups of messages are near the screen, and the
  // text read from a page not yet drawn lacked every message (CI saw it once, under load).
  await page.evaluate(() => new Promise((resolve) => {
    requestAnimationFrame(() => requestAnimationFrame(resolve));
  }));
  const seen = await page.evaluate(() => {
    const visible = (element) => !element.hidden && element.offsetParent !== null;
    const articles = Array.from(document.querySelectorAll('article.m'));
    return {
      title: document.title,
      pwned: typeof window.__pwned !== 'undefined',
      messages: articles.length,
      visible_messages: articles.filter(visible).length,
      kinds: articles.map((article) => article.dataset.k),
      compactions: Array.from(document.querySelectorAll('section.compaction h2')).map((h) => h.textContent),
      tool_calls: Array.from(document.querySelectorAll('details.call > summary > b')).map((b) => b.textContent),
      interrupts: Array.from(document.querySelectorAll('.interrupt')).map((div) => div.dataset.verdict),
      curve: document.querySelectorAll('#context svg').length,
      filter_shown: !document.getElementById('filter').hidden,
      scripts: document.querySelectorAll('script').length,
      links: Array.from(document.querySelectorAll('a[href]')).map((a) => a.getAttribute('href')),
      text: document.body.innerText,
    };
  });
  // Each sub-agent's fold: where it sits, whether its messages show while it is closed, then
  // opened alone (scrolled to, so that its group is laid out), what it shows.
  seen.agents = [];
  const agent_count = await page.evaluate(() => document.querySelectorAll('details.agent').length);
  for (let at = 0; at < agent_count; at += 1) {
    seen.agents.push(await page.evaluate(async (at) => {
      const fold = document.querySelectorAll('details.agent')[at];
      const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
      fold.scrollIntoView();
      await frame();
      const first = () => fold.querySelector('article.s');
      const shown = () => first() !== null && first().checkVisibility();
      const before = shown();
      fold.open = true;
      fold.scrollIntoView();
      await frame();
      const previous = fold.previousElementSibling;
      return {
        id: fold.querySelector('summary code').textContent,
        under_call: previous !== null && previous.matches('details.call')
          ? previous.querySelector('summary > b').textContent : null,
        in_section: fold.closest('#subagents') !== null,
        shown_closed: before,
        shown_open: shown(),
        messages: fold.querySelectorAll('article.s').length,
        text: fold.innerText,
        pwned: typeof window.__pwned !== 'undefined',
      };
    }, at));
  }
  // Every fold open: nothing in them may run either.
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
  await page.waitForTimeout(100);
  seen.pwned_after_opening = await page.evaluate(() => typeof window.__pwned !== 'undefined');
  // The filter box: prompts only, errors only, a word.
  await setBox(page, '#f-prompts', true);
  seen.prompts_only = await page.evaluate(() =>
    Array.from(document.querySelectorAll('article.m')).filter((a) => !a.hidden).map((a) => a.dataset.k));
  await setBox(page, '#f-prompts', false);
  await setBox(page, '#f-errors', true);
  seen.errors_only = await page.evaluate(() =>
    Array.from(document.querySelectorAll('article.m')).filter((a) => !a.hidden).length);
  await setBox(page, '#f-errors', false);
  if (word) {
    await page.fill('#f-word', word);
    await page.waitForFunction(() => document.getElementById('f-count').textContent !== '');
    seen.word_shown = await page.evaluate(() =>
      Array.from(document.querySelectorAll('article.m')).filter((a) => !a.hidden).map((a) => a.id));
    await page.fill('#f-word', '');
    await page.waitForFunction(() => document.getElementById('f-count').textContent === '');
  }
  // Scrolling to the bottom in steps of a screen, each step drawn (for BENCHMARKS.md).
  seen.scroll = await page.evaluate(async () => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
    const start = performance.now();
    let steps = 0;
    let longest = 0;
    while (window.scrollY + window.innerHeight < document.documentElement.scrollHeight - 2 && steps < 100000) {
      const before = performance.now();
      window.scrollBy(0, window.innerHeight);
      await frame();
      longest = Math.max(longest, performance.now() - before);
      steps += 1;
    }
    return { ms: performance.now() - start, steps, longest_step_ms: longest };
  });
  seen.load_ms = load_ms;
  await page.screenshot({ path: screenshot });
  seen.requests_left = left;
  seen.errors = errors;
  await context.close();
  process.stdout.write(JSON.stringify(seen) + '\n');
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack || error) + '\n');
  process.exit(1);
});
