// Benchmark: a page `ctxhooks view` wrote, opened in headless Chromium: how long it takes to load
// (the navigation's DOMContentLoaded and load), to jump to the bottom, and to scroll down a screen
// at a time for STEPS screens, each step waited for until the next frame is drawn (median, 95th
// percentile and longest step: 16.7 ms is one frame at 60 Hz). Prints two JSON lines.
//
// Usage: node benches/view-scroll.js PAGE [STEPS]   (benches/view.sh runs it)
// Needs: PLAYWRIGHT_CORE (playwright-core's folder, .e2e/browser/node_modules/playwright-core),
// VIEW_PROFILE (a fresh profile folder), /usr/bin/chromium (tests/e2e/install-tools.sh).
'use strict';
const path = require('path');
const { chromium } = require(process.env.PLAYWRIGHT_CORE);
(async () => {
  const [page_path, steps_arg] = process.argv.slice(2);
  const context = await chromium.launchPersistentContext(process.env.VIEW_PROFILE, {
    executablePath: '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1200, height: 900 },
  });
  const page = context.pages()[0] || (await context.newPage());
  page.setDefaultTimeout(600000);
  const t0 = Date.now();
  await page.goto('file://' + path.resolve(page_path), { waitUntil: 'load', timeout: 600000 });
  const load = Date.now() - t0;
  const nav = await page.evaluate(() => { const n = performance.getEntriesByType('navigation')[0]; return { dom_content_loaded: n.domContentLoadedEventEnd, load: n.loadEventEnd }; });
  console.log(JSON.stringify({ load_wall_ms: load, nav }));
  const r = await page.evaluate(async (steps) => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
    const height = document.documentElement.scrollHeight;
    let t = performance.now();
    window.scrollTo(0, height); await frame(); await frame();
    const jump = performance.now() - t;
    window.scrollTo(0, 0); await frame(); await frame();
    const times = [];
    t = performance.now();
    for (let i = 0; i < steps; i++) { const b = performance.now(); window.scrollBy(0, window.innerHeight); await frame(); times.push(performance.now() - b); }
    const total = performance.now() - t;
    times.sort((a, b) => a - b);
    return { height, jump_to_bottom_ms: jump, steps, steps_ms: total, median_step_ms: times[Math.floor(times.length / 2)], p95_step_ms: times[Math.floor(times.length * 0.95)], max_step_ms: times[times.length - 1] };
  }, Number(steps_arg || 200));
  console.log(JSON.stringify(r));
  await context.close();
})().catch((e) => { console.error(e); process.exit(1); });
