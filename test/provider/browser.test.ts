/**
 * Proves the game page in a real browser (headless Chromium through
 * playwright-core), against a running provider and operator: the launch URL
 * opens the game, the keyboard plays rounds, the balance shown is the
 * operator's, free rounds play, every round verifies in the browser (✓),
 * and the page logs no errors. What the player reads is the page's own:
 * a refusal in the page's language with the balance in its money format,
 * never the problem's detail; numbers in the locale's format; a round the
 * operator has not answered is shown as being delivered, Roll paused with
 * its reason, and updates by itself once the operator is back. Space rolls
 * whatever has focus, and the page fits a 360 px wide screen (screenshots
 * at 360 and 1280 px in test-artifacts/). Skipped, with a notice, where
 * /usr/bin/chromium is absent.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { admin, balanceOf, makeOperator } from '../helpers.js';
import { operatorSwitch } from './operator-switch.js';
import { adminCall, launchOf, makeProvider, operatorCall, realClock, realLaunchBody, type Provider } from './provider-helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
/** Any wait on the page longer than this failed (ms); generous for a loaded machine. */
const PAGE_WAIT_MS = 20_000;
/** Where the screenshots go (ignored by git), from dist/test/provider/. */
const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
/** The narrowest phone the page must fit without scrolling sideways (CSS px), and its height. */
const PHONE = { width: 360, height: 640 };
const DESKTOP = { width: 1280, height: 820 };
const absent = existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is absent: the browser smoke test is skipped (apt-get install -y chromium)`;
if (absent) console.log(`notice: ${absent}`);

test('the game page plays in a browser: keyboard, balance, free rounds, verification', { skip: absent }, async () => {
  const { chromium } = await import('playwright-core');
  const op = await makeOperator();
  const operatorOrigin = await op.app.listen({ host: '127.0.0.1', port: 0 });
  const provider = await makeProvider({ endpoint: operatorOrigin });
  const providerOrigin = await provider.app.listen({ host: '127.0.0.1', port: 0 });
  provider.config.publicBaseUrl = providerOrigin;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
  });
  try {
    const playerId = `browser-${randomUUID().slice(0, 8)}`;
    assert.equal((await admin(op.app, 'POST', '/admin/players', { playerId, currency: 'EUR', balance: 50, country: 'DE' })).status, 201);
    const campaign = { id: randomUUID(), operatorId: 'local-demo-operator', game: 'dice', currency: 'EUR', betAmount: 1, rounds: 2, players: [playerId] };
    assert.equal((await adminCall(provider.app, 'POST', '/admin/campaigns', campaign)).status, 201);
    const key = await admin(op.app, 'POST', '/admin/launch-keys', { playerId, game: 'dice' });
    const launched = await operatorCall(provider.app, '/generate-launch-url', realLaunchBody({ key: key.body.key, language: 'en-GB' }));
    assert.equal(launched.status, 200, launched.raw);
    const url = launched.body.url as string;
    assert.ok(launchOf(url).token.length > 0);

    const page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(url);
    await page.waitForSelector('#app[data-state="ready"]', { timeout: PAGE_WAIT_MS });
    assert.equal(await page.textContent('#title'), 'Lucky Dice');
    assert.equal(await page.textContent('#balance'), '€50.00');
    assert.equal(await page.isVisible('#lobby'), true);
    assert.equal(await page.isVisible('#free'), true);

    const roundsShown = () => page.$$eval('#rounds li', (items) => items.length);
    const settle = async (count: number) => {
      await page.waitForFunction(
        (n) => {
          // This project compiles without the DOM types; the function runs in the page.
          const doc = (globalThis as any).document;
          return doc.querySelectorAll('#rounds li').length === n && !doc.getElementById('roll-btn').disabled;
        },
        count,
        { timeout: PAGE_WAIT_MS },
      );
    };
    // Keyboard: up raises the chance, space rolls; F plays a free round.
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.textContent('#chance-out'), '51%');
    for (let i = 1; i <= 3; i++) {
      await page.keyboard.press('Space');
      await settle(i);
    }
    await page.keyboard.press('f');
    await settle(4);
    await page.keyboard.press('f');
    await settle(5);
    assert.equal(await page.isVisible('#free'), false);
    assert.equal(await roundsShown(), 5);

    // The balance shown is the operator's.
    const shown = (await page.textContent('#balance'))!.replace(/[€,]/g, '');
    assert.equal(Number(shown), await balanceOf(op.app, playerId));
    // Every round verified in the browser, with WebCrypto.
    await page.waitForFunction(
      () => [...(globalThis as any).document.querySelectorAll('.r-check')].every((node: { textContent: string }) => node.textContent === '✓'),
      null,
      { timeout: PAGE_WAIT_MS },
    );
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await provider.close();
    await op.close();
  }
});

// eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
describe('what the player sees', { skip: absent }, () => {
  /** A player's wait for a round in these tests (ms): long for an operator that is up, short enough to see one that is down. */
  const ROUND_WAIT_MS = 1_500;
  let op: Awaited<ReturnType<typeof makeOperator>>;
  let gate: Awaited<ReturnType<typeof operatorSwitch>>;
  let provider: Provider;
  let browser: Browser;

  before(async () => {
    const { chromium } = await import('playwright-core');
    op = await makeOperator();
    gate = await operatorSwitch(await op.app.listen({ host: '127.0.0.1', port: 0 }));
    provider = await makeProvider({
      endpoint: gate.origin,
      // Real time: the delivery's back-off must pass by itself while the page waits.
      clock: realClock(),
      edit: (file) => {
        file.limits = { ...(file.limits as object), roundSettleMsMax: ROUND_WAIT_MS };
      },
    });
    provider.config.publicBaseUrl = await provider.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await provider?.close();
    await gate?.close();
    await op?.close();
  });

  /** A new player with `balance` EUR, on the game page of a launch in `language`, ready; `errors` collects what the page logged as errors. */
  async function openPage(language: string, balance: number, viewport = DESKTOP): Promise<{ page: Page; playerId: string; errors: string[] }> {
    const playerId = `page-${randomUUID().slice(0, 8)}`;
    assert.equal((await admin(op.app, 'POST', '/admin/players', { playerId, currency: 'EUR', balance, country: 'DE' })).status, 201);
    const key = await admin(op.app, 'POST', '/admin/launch-keys', { playerId, game: 'dice' });
    const launched = await operatorCall(provider.app, '/generate-launch-url', realLaunchBody({ key: key.body.key, language }));
    assert.equal(launched.status, 200, launched.raw);
    const page = await browser.newPage({ viewport });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('console', (message) => {
      // A refused request is logged by the browser itself; the page's own errors are what counts.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
    });
    await page.goto(launched.body.url as string);
    await page.waitForSelector('#app[data-state="ready"]', { timeout: PAGE_WAIT_MS });
    return { page, playerId, errors };
  }

  /** Waits until the page lists `count` rounds, none of them pending, and Roll can be pressed. */
  const settled = (page: Page, count: number) =>
    page.waitForFunction(
      (n) => {
        const d = (globalThis as any).document;
        return d.querySelectorAll('#rounds li').length === n && d.querySelectorAll('#rounds li.pending').length === 0 && !d.getElementById('roll-btn').disabled;
      },
      count,
      { timeout: PAGE_WAIT_MS },
    );

  const scrollWidth = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);

  for (const { language, words } of [
    { language: 'de-DE', words: /^Ihr Guthaben reicht für diesen Einsatz nicht aus\. Ihr Guthaben: 0,05\s€\.$/ },
    { language: 'en-GB', words: /^Your balance is too low for this bet\. Your balance: €0\.05\.$/ },
  ]) {
    test(`a bet above the balance is refused in the page's own words (${language}), with the balance in the locale's money`, async () => {
      const { page, errors } = await openPage(language, 0.05);
      try {
        await page.keyboard.press('Space');
        await page.waitForSelector('#toast:not([hidden])', { timeout: PAGE_WAIT_MS });
        const said = (await page.textContent('#toast'))!;
        assert.match(said, words);
        // Never the problem's detail: no casino's English, no ids.
        assert.doesNotMatch(said, /refused|exceeds|operator|local-demo|[0-9a-f]{8}-[0-9a-f]{4}/i);
        assert.equal(await page.$$eval('#rounds li', (items) => items.length), 0);
        assert.deepEqual(errors, []);
      } finally {
        await page.close();
      }
    });
  }

  test('numbers in the locale, Space on a focused button rolls, and the page fits 360 px', async () => {
    const { page, errors } = await openPage('de-DE', 50, PHONE);
    try {
      assert.ok((await scrollWidth(page)) <= PHONE.width, `${await scrollWidth(page)} px wide at ${PHONE.width} px`);
      // Focus on a bet chip that is not the bet: Space rolls, and does not press the chip.
      const chip = '#chips .chip:last-child';
      await page.focus(chip);
      assert.equal(await page.getAttribute(chip, 'aria-pressed'), 'false');
      // Whether Space's default (scrolling, pressing the focused control) was cancelled, as the window sees the key last.
      await page.evaluate(() => {
        const win = globalThis as any;
        win.addEventListener('keydown', (event: { key: string; defaultPrevented: boolean }) => {
          if (event.key === ' ') win.spaceDefaultPrevented = event.defaultPrevented;
        });
      });
      await page.keyboard.press('Space');
      await settled(page, 1);
      assert.equal(await page.getAttribute(chip, 'aria-pressed'), 'false', 'the focused chip was not pressed');
      assert.equal(await page.evaluate(() => (globalThis as any).spaceDefaultPrevented), true, 'Space neither scrolls nor presses the focused control');
      // German numbers: a decimal comma in the roll, the round list, the multiplier; a space before %.
      assert.match((await page.textContent('#roll'))!, /^\d{1,2},\d{4}$/);
      assert.match((await page.textContent('#rounds .r-roll'))!, /^\d{1,2},\d{2}$/);
      assert.match((await page.textContent('#multiplier'))!, /^\d+,\d{2,4}×$/);
      assert.match((await page.textContent('#chance-out'))!, /^50\s%$/);
      assert.ok((await scrollWidth(page)) <= PHONE.width, `${await scrollWidth(page)} px wide at ${PHONE.width} px after a round`);
      await page.screenshot({ path: `${ARTIFACTS}game-page-360.png`, fullPage: true });
      await page.setViewportSize(DESKTOP);
      assert.ok((await scrollWidth(page)) <= DESKTOP.width);
      await page.screenshot({ path: `${ARTIFACTS}game-page-1280.png`, fullPage: true });
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('a round the operator has not answered is shown as being delivered, and updates by itself when it lands', async () => {
    const { page, playerId, errors } = await openPage('en-GB', 50);
    try {
      gate.down = true;
      await page.keyboard.press('Space');
      await page.waitForSelector('#rounds li.pending', { timeout: PAGE_WAIT_MS });
      assert.equal(await page.textContent('#verdict'), 'Your round is being delivered to the casino: it shows here when it lands.');
      assert.equal(await page.textContent('#rounds li.pending .r-win'), 'being delivered');
      assert.equal(await page.isDisabled('#roll-btn'), true);
      assert.equal(await page.isVisible('#roll-reason'), true);
      assert.equal(await page.textContent('#roll-reason'), 'Roll is paused until your last round is delivered.');
      assert.equal(await page.textContent('#balance'), '€50.00', 'the balance as last known');
      await page.screenshot({ path: `${ARTIFACTS}game-page-pending.png` });
      // Space while it is pending plays nothing.
      await page.keyboard.press('Space');
      assert.equal(await page.$$eval('#rounds li', (items) => items.length), 1);

      gate.down = false;
      await settled(page, 1);
      assert.equal(await page.isVisible('#roll-reason'), false);
      assert.match((await page.textContent('#verdict'))!, /^(You win €\d+\.\d{2}!|Rolled \d{1,2}\.\d{4}: needed below \d{1,2}\.\d{4})$/);
      assert.match((await page.textContent('#roll'))!, /^\d{1,2}\.\d{4}$/);
      const shown = (await page.textContent('#balance'))!.replace(/[€,]/g, '');
      assert.equal(Number(shown), await balanceOf(op.app, playerId), "the operator's balance once the round landed");
      assert.deepEqual(errors, []);
    } finally {
      gate.down = false;
      await page.close();
    }
  });
});
