// What the browser scripts here share: Debian's Chromium started through
// playwright-core (never a downloaded browser) and a wait for text in the
// page's terminal (window.warren, set by the client's pages).
import { createRequire } from 'node:module';

const require = createRequire(new URL('../../client-web/package.json', import.meta.url));
const { chromium } = require('playwright-core');

export function launch() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    // playwright adds its own fresh --user-data-dir for each launch
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    timeout: 30000,
  });
}

// The rows of the page's terminal, trailing blanks cut.
export function termLines(page) {
  return page.evaluate(() => {
    const t = window.warren.term;
    const b = t.buffer.active;
    const r = [];
    for (let i = 0; i < t.rows; i++) r.push(b.getLine(i)?.translateToString(true) ?? '');
    return r;
  });
}

// Resolves once a row of the page's terminal contains text.
export function waitText(page, text, timeout = 15000) {
  return page.waitForFunction((s) => {
    const w = window.warren;
    if (!w || !w.term) return false;
    const b = w.term.buffer.active;
    for (let i = 0; i < w.term.rows; i++) if ((b.getLine(i)?.translateToString(true) ?? '').includes(s)) return true;
    return false;
  }, text, { timeout });
}

// A script's end: closes the browser, prints out (JSON) for the test that
// ran it, and exits 1 if out.errors holds any, 0 otherwise. A browser that
// fails to close is one more error.
export async function finish(browser, out) {
  await browser.close().catch((e) => out.errors.push(`close: ${e.stack || e}`));
  console.log(JSON.stringify(out));
  process.exit(out.errors.length ? 1 : 0);
}
