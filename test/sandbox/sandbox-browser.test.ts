/**
 * Proves the sandbox's pages in a real browser (headless Chromium through
 * playwright-core) against `wagerlink sandbox` run as a child process, under
 * their content policies (the lobby frames the provider's game page, which
 * only the operator's pages may frame): the lobby creates a player, at 0,
 * whom the back office's deposit form gives money, lists the catalog's games and launches a game of
 * each kind (dice and reels) for real in its iframe and plays rounds of each
 * (a reels feature spin by spin when one comes), and the balance it then shows equals
 * the operator's ledger; a demo (fun) launch plays without touching the
 * operator (the player's balance and transactions stay as they were); the
 * back office shows the player's rounds and one round's requests and
 * answers; a tournament payout from its form reaches the player; the list
 * of all players pages through the seeded players and filters them; with
 * the casino switched off (Casino down), a payout is parked after the
 * (shortened) horizon, and resolved from the outbox's Resolve form with the
 * operator's reference, as the provider's API then shows. The pages
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

/**
 * The page's errors. A refusal's status line, which the browser logs of its
 * own accord, is not one: the lobby's new-player form asks which currencies
 * the games have, and one they have not is answered 422.
 */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
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

// eslint-disable-next-line max-lines-per-function -- one scenario, step by step, against one running sandbox
test('the lobby and the back office, in a browser, against npm start', { skip: absent }, async (t) => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'wagerlink-sandbox-browser-'));
  const [port, providerPort] = [await freePort(), await freePort()];
  // A horizon of 2 s: a payout the casino cannot answer (Casino down) is parked soon, for the Resolve form.
  await startWagerlink(['sandbox', '--data', dir, '--port', String(port), '--provider-port', String(providerPort), '--dispatch-horizon', '2'], {
    ready: /sandbox ready/,
    until: t,
  });
  const origin = `http://127.0.0.1:${port}`;
  const secrets = JSON.parse(readFileSync(join(dir, 'sandbox-secrets.json'), 'utf8')) as {
    adminToken: string;
    operatorStaffToken: string;
    providerStaffToken: string;
  };
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
  // In English: the lobby writes amounts in the browser's language (money-text.ts).
  const page = await browser.newPage({ viewport: SIZES.desktop, locale: 'en-US' });
  const errors = watchErrors(page);
  const { moneyFormat } = (await import(new URL('../../web/sandbox/money-text.js', import.meta.url).href)) as {
    moneyFormat: (language: string, currency: string) => (amount: number) => string;
  };
  const eur = moneyFormat('en-US', 'EUR');

  // The lobby: create a player.
  await page.goto(`${origin}/lobby/`);
  await page.locator('#games li').first().waitFor({ timeout: PAGE_WAIT_MS });
  assert.equal(await page.inputValue('#player-picker'), 'alice');
  await page.click('summary');
  await page.fill('#create-player [name=playerId]', 'browser-player');
  await page.selectOption('#create-player [name=currency]', 'EUR');
  assert.equal(await page.locator('#create-player [name=balance]').count(), 0, 'the lobby takes no money');
  await page.click('#create-player button[type=submit]');
  await page.waitForFunction((text) => (globalThis as any).document.getElementById('balance').textContent === text, eur(0), { timeout: PAGE_WAIT_MS });
  assert.equal(await page.inputValue('#player-picker'), 'browser-player');
  // The money comes from the back office's deposit form, as a casino's staff books it.
  const office = await browser.newPage({ viewport: SIZES.desktop });
  const officeErrors = watchErrors(office);
  // With the staff accounts the sandbox made for its back office, as its start prints them.
  await office.goto(`${origin}/backoffice/?player=browser-player#admin=${secrets.operatorStaffToken}&provider=${secrets.providerStaffToken}`);
  await office.waitForFunction(() => (globalThis as any).document.getElementById('player-balance')?.textContent === '0 EUR', undefined, {
    timeout: PAGE_WAIT_MS,
  });
  await office.fill('#deposit [name=amount]', '80');
  await office.click('#deposit button[type=submit]');
  await office.waitForFunction(() => (globalThis as any).document.getElementById('player-balance')?.textContent === '80 EUR', undefined, {
    timeout: PAGE_WAIT_MS,
  });
  // The deposit is in the audit log under the back office's own account.
  await office.click('#audit-reload');
  await office.waitForFunction(() => /deposit=/.test((globalThis as any).document.getElementById('audit').textContent), undefined, { timeout: PAGE_WAIT_MS });
  assert.match(
    (await office.textContent('#audit tbody tr:first-child'))!,
    /backoffice-[0-9a-f]{6} \([0-9a-f]{16}\)POST \/admin\/players\/:playerId\/adjustmentsplayer=browser-player deposit=.*80 EUR.*200/,
  );
  assert.deepEqual(officeErrors, [], 'the back office logged no errors');
  await office.close();
  await page.reload();
  await page.waitForFunction((text) => (globalThis as any).document.getElementById('balance').textContent === text, eur(80), { timeout: PAGE_WAIT_MS });
  // The games come in their own answer, which may follow the balance's on a loaded machine: waited for, not assumed.
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#games li.game').length > 0, undefined, { timeout: PAGE_WAIT_MS });
  const slugs = await page.$$eval('#games li.game', (items) => items.map((item) => item.getAttribute('data-game')));
  assert.ok(slugs.includes('dice') && slugs.includes('reels'), `the lobby lists the catalog's games, of both kinds: ${slugs.join(', ')}`);
  await page.screenshot({ path: `${ARTIFACTS}sandbox-lobby-1280.png`, fullPage: true });

  // Play a game of each kind for real, in the iframe.
  for (const slug of ['dice', 'reels']) {
    await page.click(`#games li[data-game="${slug}"] button.primary`);
    await page.locator('#stage:not([hidden])').waitFor({ timeout: PAGE_WAIT_MS });
    await playRounds(page.frameLocator('#game-frame'), 3);
    await page.screenshot({ path: `${ARTIFACTS}sandbox-lobby-${slug}-1280.png`, fullPage: true });
    // The game's Lobby button is the way back.
    await Promise.all([page.waitForEvent('load', { timeout: PAGE_WAIT_MS }), page.frameLocator('#game-frame').locator('#lobby').click()]);
    await page.locator('#games li').first().waitFor({ timeout: PAGE_WAIT_MS });
  }
  const booked = await ledger('browser-player');
  await page.waitForFunction((text) => (globalThis as any).document.getElementById('balance').textContent === text, eur(booked.balance), {
    timeout: PAGE_WAIT_MS,
  });
  assert.equal((await transfers('browser-player')) >= 1 + 6, true, 'the deposit and at least a bet per round are booked');

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
  assert.deepEqual(
    { balance: (await ledger('browser-player')).balance, transfers: await transfers('browser-player') },
    before,
    'demo play leaves the operator untouched',
  );

  await page.setViewportSize(SIZES.phone);
  await page.goto(`${origin}/lobby/?player=browser-player`);
  await page.locator('#games li').first().waitFor({ timeout: PAGE_WAIT_MS });
  assert.equal(await fitsWidth(page), true, 'the lobby fits 360 px');
  await page.screenshot({ path: `${ARTIFACTS}sandbox-lobby-360.png`, fullPage: true });

  // The back office: the player's rounds, one round's requests and answers.
  await page.setViewportSize(SIZES.desktop);
  // With the staff accounts the sandbox made for its back office, as its start prints them.
  await page.goto(`${origin}/backoffice/?player=browser-player#admin=${secrets.operatorStaffToken}&provider=${secrets.providerStaffToken}`);
  await page.locator('#rounds tbody tr').first().waitFor({ timeout: PAGE_WAIT_MS });
  assert.equal(new URL(page.url()).hash, '', 'the tokens leave the address bar');
  assert.equal(await page.locator('#rounds tbody tr').count(), 6);
  await page.locator('#rounds tbody tr button').first().click();
  await page.locator('#round .request').first().waitFor({ timeout: PAGE_WAIT_MS });
  assert.match((await page.textContent('#round'))!, /\/transaction · sent/);
  assert.match((await page.textContent('#round'))!, /"status": 200/, 'the answer the operator gave');
  await page.click('#verify');
  await page.locator('#verify-result').waitFor({ timeout: PAGE_WAIT_MS });
  assert.equal(await page.textContent('#verify-result'), 'The books balance.');

  // A tournament payout from the form reaches the player.
  const owed = await ledger('browser-player');
  await page.fill('#payout [name=amount]', '7.5');
  await page.click('#payout button[type=submit]');
  await page.locator('#done:not([hidden])').waitFor({ timeout: PAGE_WAIT_MS });
  const expected = `${Math.round((owed.balance + 7.5) * 100) / 100} EUR`;
  await page.waitForFunction((text) => (globalThis as any).document.getElementById('player-balance')?.textContent === text, expected, {
    timeout: PAGE_WAIT_MS,
  });
  assert.equal((await ledger('browser-player')).balance, Math.round((owed.balance + 7.5) * 100) / 100);
  await page.screenshot({ path: `${ARTIFACTS}sandbox-backoffice-1280.png`, fullPage: true });

  // The list of all players: 25 more, seeded through the API; 20 a page, More for the rest, and the filters.
  for (let i = 1; i <= 25; i++) {
    const playerId = `seeded-${String(i).padStart(2, '0')}`;
    const made = await fetch(`${origin}/admin/players`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secrets.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ playerId, currency: i % 2 ? 'EUR' : 'USD', balance: i, country: 'DE' }),
    });
    assert.equal(made.status, 201, await made.text());
  }
  const listed = () => page.$$eval('#players tbody tr td:first-child', (cells) => cells.map((cell) => cell.textContent));
  await page.click('#refresh');
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#players tbody tr').length === 20, undefined, { timeout: PAGE_WAIT_MS });
  // By id, in code-point order: the demo players, the browser's, then the seeded ones.
  assert.deepEqual((await listed()).slice(0, 6), ['alice', 'bob', 'browser-player', 'chika', 'satoshi', 'seeded-01']);
  // The audit log: the players made through the API, by the configured admin token, the newest first.
  await page.waitForFunction(() => /player=seeded-25/.test((globalThis as any).document.getElementById('audit').textContent), undefined, {
    timeout: PAGE_WAIT_MS,
  });
  assert.match((await page.textContent('#audit tbody tr:first-child'))!, /admin-token.*POST \/admin\/players.*player=seeded-25.*25 EUR.*201/);
  await page.click('#players-more');
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#players tbody tr').length === 30, undefined, { timeout: PAGE_WAIT_MS });
  assert.equal((await listed()).at(-1), 'seeded-25');
  assert.equal(await page.isHidden('#players-more'), true, 'no page after the last');
  await page.fill('#players-filter [name=prefix]', 'seeded-1');
  await page.selectOption('#players-filter [name=currency]', 'USD');
  await page.click('#players-filter button[type=submit]');
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#players tbody tr').length === 5, undefined, { timeout: PAGE_WAIT_MS });
  assert.deepEqual(await listed(), ['seeded-10', 'seeded-12', 'seeded-14', 'seeded-16', 'seeded-18']);
  await page.click('#players tbody tr button[data-player="seeded-12"]');
  await page.waitForFunction(() => (globalThis as any).document.getElementById('player-balance')?.textContent === '12 USD', undefined, {
    timeout: PAGE_WAIT_MS,
  });
  // The casino's GGR chart: the browser player's rounds, in EUR.
  assert.match((await page.getAttribute('#ggr-chart svg', 'aria-label'))!, /^Gross gaming revenue of the casino per game per day, EUR, /);

  // The casino down: a payout is parked after the horizon, then resolved from the form with the casino back up.
  await page.click('#outage');
  await page.locator('#outage[aria-pressed="true"]').waitFor({ timeout: PAGE_WAIT_MS });
  const unpaid = await ledger('browser-player');
  await page.fill('#payout [name=playerId]', 'browser-player');
  await page.fill('#payout [name=currency]', 'EUR');
  await page.fill('#payout [name=amount]', '3');
  await page.click('#payout button[type=submit]');
  await page.waitForFunction(() => /Payout .* to browser-player: /.test((globalThis as any).document.getElementById('done').textContent), undefined, {
    timeout: PAGE_WAIT_MS,
  });
  const providerAdmin = async (path: string) => {
    const answer = await fetch(`http://127.0.0.1:${providerPort}/admin${path}`, { headers: { authorization: `Bearer ${secrets.providerStaffToken}` } });
    return (await answer.json()) as { items: { id: string; status: string; path: string; resolution: string | null }[] };
  };
  let parked: { id: string } | undefined;
  for (let i = 0; i < 100 && !parked; i++) {
    parked = (await providerAdmin('/outbox?status=parked')).items.find((item) => item.path === '/payout');
    if (!parked) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.ok(parked, 'the payout the casino could not take is parked after the horizon');
  assert.equal((await ledger('browser-player')).balance, unpaid.balance, 'the casino down booked nothing');
  await page.click('#outage');
  await page.locator('#outage[aria-pressed="false"]').waitFor({ timeout: PAGE_WAIT_MS });
  await page.selectOption('#outbox-status', 'parked');
  const form = page.locator(`#outbox form.resolve[data-item="${parked.id}"]`);
  await form.waitFor({ timeout: PAGE_WAIT_MS });
  await page.screenshot({ path: `${ARTIFACTS}sandbox-backoffice-outbox-1280.png`, fullPage: true });
  // An empty reference is the person's mistake, said on the page; nothing is sent.
  await form.locator('button[type=submit]').click();
  assert.equal(await page.isVisible(`#outbox form.resolve[data-item="${parked.id}"]`), true);
  await form.locator('[name=reference]').fill('casino-ref-42');
  await form.locator('button[type=submit]').click();
  await page.waitForFunction(
    (id) => (globalThis as any).document.getElementById('done').textContent === `Item ${id} is resolved with the reference casino-ref-42.`,
    parked.id,
    { timeout: PAGE_WAIT_MS },
  );
  await page.locator(`#outbox form.resolve[data-item="${parked.id}"]`).waitFor({ state: 'detached', timeout: PAGE_WAIT_MS });
  const resolved = (await providerAdmin('/outbox?status=resolved')).items.find((item) => item.id === parked!.id);
  assert.equal(resolved?.resolution, 'casino-ref-42', "the provider holds the item as resolved, with the operator's reference");
  assert.equal((await ledger('browser-player')).balance, unpaid.balance, 'resolved by hand: not sent again');

  await page.setViewportSize(SIZES.phone);
  await page.selectOption('#outbox-status', 'resolved');
  await page.locator(`#outbox code`).first().waitFor({ timeout: PAGE_WAIT_MS });
  assert.equal(await fitsWidth(page), true, 'the back office with its players and outbox fits 360 px');
  await page.screenshot({ path: `${ARTIFACTS}sandbox-backoffice-players-360.png`, fullPage: true });
  await page.reload();
  await page.locator('#rounds tbody tr').first().waitFor({ timeout: PAGE_WAIT_MS });
  assert.equal(await fitsWidth(page), true, 'the back office fits 360 px');
  await page.screenshot({ path: `${ARTIFACTS}sandbox-backoffice-360.png`, fullPage: true });
  assert.deepEqual(errors, [], 'the pages log no errors');
});
