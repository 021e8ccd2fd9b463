/**
 * Proves the game page in a real browser (headless Chromium through
 * playwright-core), against a running provider and operator: the launch URL
 * opens the game, the keyboard plays rounds, the balance shown is the
 * operator's, free rounds play, every round verifies in the browser (✓),
 * and the page logs no errors. Skipped, with a notice, where
 * /usr/bin/chromium is absent.
 */
import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, balanceOf, makeOperator } from '../helpers.js';
import { adminCall, launchOf, makeProvider, operatorCall, realLaunchBody } from './provider-helpers.js';

const CHROMIUM = '/usr/bin/chromium';
/** Any wait on the page longer than this failed (ms); generous for a loaded machine. */
const PAGE_WAIT_MS = 20_000;
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
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
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
