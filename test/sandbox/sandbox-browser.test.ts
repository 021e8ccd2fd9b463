/**
 * Proves the sandbox's pages in a real browser (headless Chromium through
 * playwright-core) against `wagerlink sandbox` run as a child process: the
 * lobby creates a player, lists the catalog's games and launches a game of
 * each kind (dice and reels) for real in its iframe and plays rounds of each
 * (a reels feature spin by spin when one comes), and the balance it then shows equals
 * the operator's ledger; a demo (fun) launch plays without touching the
 * operator (the player's balance and transactions stay as they were); the
 * back office shows the player's rounds and one round's requests and
 * answers; a tournament payout from its form reaches the player. The pages
 * log no errors and fit 1280 and 360 px wide screens without sideways
 * scrolling (screenshots in test-artifacts/). Skipped, with a notice, where
 * /usr/bin/chromium is absent.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { freePort, startWagerlink } from '../harness/child-process.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
/** Any wait on a page longer than this failed (ms); generous for a loaded machine. */
const PAGE_WAIT_MS = 20_000;
const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
const SIZES = { desktop: { width: 1280, height: 900 }, phone: { width: 360, height: 740 } };
const absent = existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is absent: the sandbox's browser test is skipped (apt-get install -y chromium)`;
if (absent) console.log(`notice: ${absent}`);

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

/**
 * Plays `count` rounds in the game's iframe, waiting for each to settle: a
 * dice page's Roll, or a reels page's Spin and the free spins of a feature
 * it triggers, one by one.
 */
async function playRounds(game: FrameLocator, count: number): Promise<void> {
  await game.locator('#app[data-state="ready"]').waitFor({ timeout: PAGE_WAIT_MS });
  const reels = (await game.locator('#spin-btn').count()) > 0;
  const play = reels ? '#spin-btn' : '#roll-btn';
  for (let i = 1; i <= count; i++) {
    await game.locator(play).click();
    await game.locator(`#rounds li:nth-child(${i})`).waitFor({ timeout: PAGE_WAIT_MS });
    await game.locator('#rounds li.pending').waitFor({ state: 'detached', timeout: PAGE_WAIT_MS });
    if (reels) {
      await game.locator(`${play}:not([disabled]), #feature-btn:not([hidden]):not([disabled])`).first().waitFor({ timeout: PAGE_WAIT_MS });
      while (await game.locator('#feature-btn:not([hidden])').count()) {
        await game.locator('#feature-btn:not([disabled])').click();
        await game.locator(`${play}:not([disabled]), #feature-btn:not([hidden]):not([disabled])`).first().waitFor({ timeout: PAGE_WAIT_MS });
      }
      await game.locator('#rounds li.pending').waitFor({ state: 'detached', timeout: PAGE_WAIT_MS });
    }
    await game.locator(`${play}:not([disabled])`).waitFor({ timeout: PAGE_WAIT_MS });
  }
}

async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    return doc.documentElement.scrollWidth <= doc.documentElement.clientWidth;
  });
}

test('the lobby and the back office, in a browser, against npm start', { skip: absent }, async (t) => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'wagerlink-sandbox-browser-'));
  const [port, providerPort] = [await freePort(), await freePort()];
  await startWagerlink(['sandbox', '--data', dir, '--port', String(port), '--provider-port', String(providerPort)], { ready: /sandbox ready/, until: t });
  const origin = `http://127.0.0.1:${port}`;
  const secrets = JSON.parse(readFileSync(join(dir, 'sandbox-secrets.json'), 'utf8')) as { adminToken: string; providerAdminToken: string };
  const ledger = async (playerId: string) => {
    const answer = await fetch(`${origin}/admin/players/${playerId}`, { headers: { authorization: `Bearer ${secrets.adminToken}` } });
    return (await answer.json()) as { balance: number; currency: string };
  };
  const transfers = async (playerId: string) => {
    const answer = await fetch(`${origin}/admin/players/${playerId}/transactions?limit=500`, { headers: { authorization: `Bearer ${secrets.adminToken}` } });
    return ((await answer.json()) as { items: unknown[] }).items.length;
  };

  const { chromium } = await import('playwright-core');
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  t.after(() => browser.close());
  const page = await browser.newPage({ viewport: SIZES.desktop });
  const errors = watchErrors(page);

  // The lobby: create a player.
  await page.goto(`${origin}/lobby/`);
  await page.locator('#games li').first().waitFor({ timeout: PAGE_WAIT_MS });
  assert.equal(await page.inputValue('#player-picker'), 'alice');
  await page.click('summary');
  await page.fill('#create-player [name=playerId]', 'browser-player');
  await page.selectOption('#create-player [name=currency]', 'EUR');
  await page.fill('#create-player [name=balance]', '80');
  await page.click('#create-player button[type=submit]');
  await page.waitForFunction(() => (globalThis as any).document.getElementById('balance').textContent === '80 EUR', undefined, { timeout: PAGE_WAIT_MS });
  assert.equal(await page.inputValue('#player-picker'), 'browser-player');
  const slugs = await page.$$eval('#games li.game', (items) => items.map((item) => item.getAttribute('data-game')));
  assert.ok(slugs.includes('dice') && slugs.includes('reels'), `the lobby lists the catalog's games, of both kinds: ${slugs.join(', ')}`);
  await page.screenshot({ path: `${ARTIFACTS}sandbox-lobby-1280.png`, fullPage: true });

  // Play a game of each kind for real, in the iframe.
  for (const slug of ['dice', 'reels']) {
    await page.click(`#games li[data-game="${slug}"] button.primary`);
    await page.locator('#stage:not([hidden])').waitFor({ timeout: PAGE_WAIT_MS });
    await playRounds(page.frameLocator('#game-frame'), 3);
    await page.screenshot({ path: `${ARTIFACTS}sandbox-lobby-${slug}-1280.png`, fullPage: true });
    await page.click('#close-game');
  }
  const booked = await ledger('browser-player');
  await page.waitForFunction((text) => (globalThis as any).document.getElementById('balance').textContent === text, `${booked.balance} EUR`, { timeout: PAGE_WAIT_MS });
  assert.equal(await transfers('browser-player') >= 1 + 6, true, 'the deposit and at least a bet per round are booked');

  // The game's lobby button leads back to the lobby, with the player chosen.
  await page.click(`#games li[data-game="${slugs[0]}"] button.primary`);
  await page.frameLocator('#game-frame').locator('#app[data-state="ready"]').waitFor({ timeout: PAGE_WAIT_MS });
  await page.frameLocator('#game-frame').locator('#lobby').click();
  await page.waitForURL(/\/lobby\/\?player=browser-player/, { timeout: PAGE_WAIT_MS });
  await page.locator('#games li').first().waitFor({ timeout: PAGE_WAIT_MS });
  assert.equal(await page.inputValue('#player-picker'), 'browser-player');

  // Demo: plays, and the operator sees nothing of it.
  const before = { balance: (await ledger('browser-player')).balance, transfers: await transfers('browser-player') };
  await page.click(`#games li[data-game="${slugs[0]}"] button:not(.primary)`);
  await playRounds(page.frameLocator('#game-frame'), 2);
  assert.deepEqual({ balance: (await ledger('browser-player')).balance, transfers: await transfers('browser-player') }, before, 'demo play leaves the operator untouched');
  await page.click('#close-game');

  await page.setViewportSize(SIZES.phone);
  await page.goto(`${origin}/lobby/?player=browser-player`);
  await page.locator('#games li').first().waitFor({ timeout: PAGE_WAIT_MS });
  assert.equal(await fitsWidth(page), true, 'the lobby fits 360 px');
  await page.screenshot({ path: `${ARTIFACTS}sandbox-lobby-360.png`, fullPage: true });

  // The back office: the player's rounds, one round's requests and answers.
  await page.setViewportSize(SIZES.desktop);
  await page.goto(`${origin}/backoffice/?player=browser-player#admin=${secrets.adminToken}&provider=${secrets.providerAdminToken}`);
  await page.locator('#rounds tbody tr').first().waitFor({ timeout: PAGE_WAIT_MS });
  assert.equal(new URL(page.url()).hash, '', 'the tokens leave the address bar');
  assert.equal(await page.locator('#rounds tbody tr').count(), 6);
  await page.locator('#rounds tbody tr button').first().click();
  await page.locator('#round .request').first().waitFor({ timeout: PAGE_WAIT_MS });
  assert.match((await page.textContent('#round'))!, /\/transaction · sent/);
  assert.match((await page.textContent("#round"))!, /"status": 200/, "the answer the operator gave");
  await page.click('#verify');
  await page.locator('#verify-result').waitFor({ timeout: PAGE_WAIT_MS });
  assert.equal(await page.textContent('#verify-result'), 'The books balance.');

  // A tournament payout from the form reaches the player.
  const owed = await ledger('browser-player');
  await page.fill('#payout [name=amount]', '7.5');
  await page.click('#payout button[type=submit]');
  await page.locator('#done:not([hidden])').waitFor({ timeout: PAGE_WAIT_MS });
  const expected = `${Math.round((owed.balance + 7.5) * 100) / 100} EUR`;
  await page.waitForFunction((text) => (globalThis as any).document.getElementById('player-balance')?.textContent === text, expected, { timeout: PAGE_WAIT_MS });
  assert.equal((await ledger('browser-player')).balance, Math.round((owed.balance + 7.5) * 100) / 100);
  await page.screenshot({ path: `${ARTIFACTS}sandbox-backoffice-1280.png`, fullPage: true });

  await page.setViewportSize(SIZES.phone);
  await page.reload();
  await page.locator('#rounds tbody tr').first().waitFor({ timeout: PAGE_WAIT_MS });
  assert.equal(await fitsWidth(page), true, 'the back office fits 360 px');
  await page.screenshot({ path: `${ARTIFACTS}sandbox-backoffice-360.png`, fullPage: true });
  assert.deepEqual(errors, [], 'the pages log no errors');
});
