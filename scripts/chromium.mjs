// The system Chromium (Debian's `chromium` package, installed by .ci/run; no browser download) and how the browser
// tests and the search page benchmark start it through playwright-core.

/** `CHROMIUM_PATH` overrides /usr/bin/chromium. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, and nothing that reaches the network or competes for the CPU besides the page. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
