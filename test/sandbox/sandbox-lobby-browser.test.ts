/**
 * Proves, in a real browser (headless Chromium through playwright-core)
 * against `wagerlink sandbox` run as a child process, what the lobby and the
 * back office tell a person. The lobby, in German: speaks German, writes
 * amounts as the game does (100,00 €), says a refusal in a sentence of its
 * own and never its code (a taken id, an unknown country), offers in its
 * new-player form only currencies some game has bets in (no GBP), and for a
 * player whose currency no game offers shows that player's balance and no
 * games, said in words, instead of the previous player's; Demo for a USD
 * player plays in USD (its balance and bet, at 1280 and 360 px). The game's frame
 * is sized to the game, at 1280 and 360 px (nothing scrolls inside it,
 * its title and its roll are whole), the game's Lobby button is the one way
 * back, the lobby's balance follows the game's through the game's messages,
 * and a touch screen gets no keyboard hints. The back office: a refused token is
 * dropped and the token form comes back with the reason, after a reload
 * too; its outbox filter offers the outbox's statuses; a free bet moves
 * nothing on the balance chart; and with the casino down, the outbox and
 * the codes chart follow the provider's attempts by themselves, the chart
 * counting what /metrics counts. Skipped, with a notice, where
 * /usr/bin/chromium is absent.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Frame, Page } from 'playwright-core';
import { ITEM_STATUSES } from '../../src/dispatch/outbox.js';
import { freePort, startWagerlink } from '../harness/child-process.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
/** Any wait on a page longer than this failed (ms); generous for a loaded machine. */
const PAGE_WAIT_MS = 20_000;
const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
const SIZES = { desktop: { width: 1280, height: 900 }, phone: { width: 360, height: 740 } };
const absent = existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is absent: the lobby's browser test is skipped (apt-get install -y chromium)`;
if (absent) console.log(`notice: ${absent}`);

/** A page module as compiled into dist/web/sandbox (the pages are compiled apart, by web/sandbox/tsconfig.json). */
async function pageModule<T>(name: string): Promise<T> {
  return (await import(new URL(`../../web/sandbox/${name}.js`, import.meta.url).href)) as T;
}

/** The page's errors; a refusal's status line, which the browser logs of its own accord, is an answer the test asked for. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
  });
  return errors;
}

/** The game page in the lobby's frame, once it is ready. */
async function gameFrame(page: Page): Promise<Frame> {
  await page.locator('#stage:not([hidden])').waitFor({ timeout: PAGE_WAIT_MS });
  await page.frameLocator('#game-frame').locator('#app[data-state="ready"]').waitFor({ timeout: PAGE_WAIT_MS });
  const frame = await (await page.$('#game-frame'))!.contentFrame();
  assert.ok(frame);
  return frame;
}

/** Waits until the frame is as tall as the game in it: its page does not scroll, and its title is whole. */
async function fitsGame(frame: Frame): Promise<void> {
  await frame.waitForFunction(
    () => {
      const root = (globalThis as any).document.documentElement;
      return root.scrollHeight <= root.clientHeight + 1;
    },
    undefined,
    { timeout: PAGE_WAIT_MS },
  );
  const title = await frame.$eval('#title', (node: any) => ({ scroll: node.scrollWidth, client: node.clientWidth, text: node.textContent }));
  assert.ok(title.scroll <= title.client, `the game's title "${title.text}" is whole`);
  // No word is broken across lines: the title takes at most a line per word, the lobby button one line.
  const lines = (selector: string) =>
    frame.$eval(selector, (node: any) => {
      const range = (globalThis as any).document.createRange();
      range.selectNodeContents(node);
      return new Set([...range.getClientRects()].map((rect: any) => Math.round(rect.top))).size;
    });
  assert.ok((await lines('#title')) <= title.text.trim().split(/\s+/).length, `the game's title "${title.text}" breaks between its words only`);
  if (await frame.isVisible('#lobby')) assert.equal(await lines('#lobby'), 1, 'the Lobby button is one line');
}

// eslint-disable-next-line max-lines-per-function -- one scenario, step by step, against one running sandbox
test('the lobby and the back office say what a person needs, in a browser', { skip: absent }, async (t) => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const { LOBBY_STRINGS } = await pageModule<{ LOBBY_STRINGS: Record<string, Record<string, string>> }>('lobby-strings');
  const { moneyFormat } = await pageModule<{ moneyFormat: (language: string, currency: string) => (amount: number) => string }>('money-text');
  const de = LOBBY_STRINGS.de!;
  const dir = mkdtempSync(join(tmpdir(), 'wagerlink-lobby-browser-'));
  const [port, providerPort] = [await freePort(), await freePort()];
  // A horizon of 2 s: a payout the casino cannot answer (Casino down) is parked soon.
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
  const adminCall = async (path: string, body?: unknown) => {
    const answer = await fetch(`${origin}/admin${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${secrets.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await answer.json()) as any;
  };

  const { chromium } = await import('playwright-core');
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  t.after(() => browser.close());

  // ---------------------------------------------------------- the lobby, in German
  const german = await browser.newContext({ locale: 'de-DE', viewport: SIZES.desktop });
  const page = await german.newPage();
  const errors = watchErrors(page);
  await page.goto(`${origin}/lobby/?player=alice`);
  await page.locator('#games li.game').first().waitFor({ timeout: PAGE_WAIT_MS });
  assert.equal(await page.textContent('#games-heading'), de.games);
  assert.equal(await page.textContent('#balance'), moneyFormat('de-DE', 'EUR')(100));
  assert.equal(await page.textContent('#balance'), '100,00\u00a0€');
  await page.click('summary');
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#create-player [name=currency] option').length > 0, undefined, {
    timeout: PAGE_WAIT_MS,
  });
  assert.deepEqual(
    await page.$$eval('#create-player [name=currency] option', (options) => options.map((o) => o.textContent)),
    ['EUR', 'USD', 'JPY', 'BTC'],
    'no game has bets in GBP',
  );

  // Refusals in the page's words, never a code.
  await page.fill('#create-player [name=playerId]', 'alice');
  await page.click('#create-player button[type=submit]');
  await page.waitForFunction((text) => (globalThis as any).document.getElementById('problem').textContent === text, de.pExists, { timeout: PAGE_WAIT_MS });
  await page.fill('#create-player [name=playerId]', 'walker');
  await page.fill('#create-player [name=country]', 'XX');
  await page.click('#create-player button[type=submit]');
  await page.waitForFunction((text) => (globalThis as any).document.getElementById('problem').textContent === text, de.pCountry, { timeout: PAGE_WAIT_MS });

  // A player whose currency no game offers: their balance, no games, said in words; never alice's cards.
  await adminCall('/players', { playerId: 'pounds', currency: 'GBP', balance: 20, country: 'GB' });
  await page.goto(`${origin}/lobby/?player=alice`);
  await page.locator('#games li.game').first().waitFor({ timeout: PAGE_WAIT_MS });
  await page.selectOption('#player-picker', 'pounds');
  await page.locator('#no-games:not([hidden])').waitFor({ timeout: PAGE_WAIT_MS });
  assert.equal(await page.textContent('#no-games'), de.noGames!.replace('{currency}', 'GBP'));
  assert.equal(await page.locator('#games li').count(), 0);
  assert.equal(await page.textContent('#balance'), moneyFormat('de-DE', 'GBP')(20));
  assert.equal(await page.isHidden('#problem'), true);
  // A USD player's bets, written as the game writes them.
  await page.selectOption('#player-picker', 'bob');
  await page.locator('#games li.game').first().waitFor({ timeout: PAGE_WAIT_MS });
  assert.equal(await page.textContent('#games li.game .ladder li'), moneyFormat('de-DE', 'USD')(0.1));
  assert.equal(await page.isHidden('#no-games'), true);
  // Demo for the USD player plays in USD: the provider's 1000 EUR of play money is 1000 USD, bet from the USD ladder.
  await page.click('#games li[data-game="dice"] button:not(.primary)');
  const demo = await gameFrame(page);
  assert.equal(await page.textContent('#game-title'), de.demoTitle!.replace('{title}', 'Lucky Dice'));
  assert.equal(await demo.textContent('#balance'), moneyFormat('de-DE', 'USD')(1000));
  const usdLadder = await page.$$eval('#games li[data-game="dice"] .ladder li', (items) => items.map((item) => item.textContent));
  assert.ok(usdLadder.includes(await demo.textContent('#bet')), `the bet is one of the USD ladder's: ${usdLadder.join(', ')}`);
  await fitsGame(demo);
  await page.screenshot({ path: `${ARTIFACTS}sandbox-lobby-demo-usd-1280.png`, fullPage: true });
  await page.setViewportSize(SIZES.phone);
  await fitsGame(demo);
  const demoBalance = await demo.$eval('#balance', (node: any) => ({ scroll: node.scrollWidth, client: node.clientWidth }));
  assert.ok(demoBalance.scroll <= demoBalance.client, 'the USD balance is whole at 360 px');
  await page.screenshot({ path: `${ARTIFACTS}sandbox-lobby-demo-usd-360.png`, fullPage: true });
  await page.setViewportSize(SIZES.desktop);

  // ----------------------------------------------------- the game in the lobby
  await page.selectOption('#player-picker', 'alice');
  await page.locator('#games li[data-game="dice"]').waitFor({ timeout: PAGE_WAIT_MS });
  await page.evaluate(() => {
    const w = globalThis as any;
    w.balanceMessages = 0;
    w.addEventListener('message', (event: any) => {
      if (event.data?.source === 'wagerlink-game' && event.data.type === 'balance') w.balanceMessages++;
    });
  });
  await page.click('#games li[data-game="dice"] button.primary');
  let game = await gameFrame(page);
  assert.equal(await page.locator('#stage button').count(), 0, "the game's Lobby button is the one way back");
  assert.equal(await game.isVisible('#lobby'), true);
  await fitsGame(game);
  assert.equal(await game.isVisible('.hint'), true, 'a mouse and keyboard get the keys hinted');
  await page.screenshot({ path: `${ARTIFACTS}sandbox-lobby-game-1280.png`, fullPage: true });
  // A free round (alice's campaign): the lobby's balance follows the game's, told by the game's message.
  await game.click('#free-btn');
  await game.locator('#rounds li:nth-child(1):not(.pending)').waitFor({ timeout: PAGE_WAIT_MS });
  const afterFree = (await adminCall('/players/alice')) as { balance: number };
  await page.waitForFunction(
    (text) => (globalThis as any).document.getElementById('balance').textContent === text,
    moneyFormat('de-DE', 'EUR')(afterFree.balance),
    { timeout: PAGE_WAIT_MS },
  );
  assert.ok((await page.evaluate(() => (globalThis as any).balanceMessages)) >= 1, 'the game told the lobby of its balance');
  await page.setViewportSize(SIZES.phone);
  await fitsGame(game);
  const roll = await game.$eval('#roll', (node: any) => ({ scroll: node.scrollWidth, client: node.clientWidth, text: node.textContent }));
  assert.ok(roll.scroll <= roll.client, `the roll "${roll.text}" is whole at 360 px`);
  await page.screenshot({ path: `${ARTIFACTS}sandbox-lobby-game-360.png`, fullPage: true });
  // The way back: the lobby, with alice chosen.
  await Promise.all([page.waitForEvent('load', { timeout: PAGE_WAIT_MS }), game.click('#lobby')]);
  assert.match(page.url(), /\/lobby\/\?player=alice$/);
  await page.locator('#games li.game').first().waitFor({ timeout: PAGE_WAIT_MS });
  assert.equal(await page.isHidden('#stage'), true);
  assert.deepEqual(errors, [], 'the lobby logged no errors');
  await german.close();

  // A touch screen: no keyboard hints.
  const touch = await browser.newContext({ viewport: SIZES.phone, hasTouch: true, isMobile: true });
  const phone = await touch.newPage();
  await phone.goto(`${origin}/lobby/?player=bob`);
  await phone.locator('#games li[data-game="dice"]').waitFor({ timeout: PAGE_WAIT_MS });
  await phone.click('#games li[data-game="dice"] button.primary');
  game = await gameFrame(phone);
  assert.equal(await game.evaluate(() => (globalThis as any).matchMedia('(pointer: coarse)').matches), true, 'the emulated screen is a touch screen');
  assert.equal(await game.isHidden('.hint'), true);
  await fitsGame(game);
  await touch.close();

  // ------------------------------------------------------------ the back office
  const office = await browser.newPage({ viewport: SIZES.desktop });
  const officeErrors: string[] = [];
  office.on('pageerror', (error) => officeErrors.push(String(error)));
  // A mistyped token: dropped, and the form asks again with the reason, after a reload too.
  await office.goto(`${origin}/backoffice/?player=alice#admin=mistyped&provider=${secrets.providerStaffToken}`);
  await office.locator('#token-form:not([hidden])').waitFor({ timeout: PAGE_WAIT_MS });
  assert.match((await office.textContent('#token-problem'))!, /operator's admin token was refused \(INVALID_TOKEN/);
  assert.equal(await office.isHidden('#app'), true);
  await office.reload();
  await office.locator('#token-form:not([hidden])').waitFor({ timeout: PAGE_WAIT_MS });
  assert.equal(await office.inputValue('#token-form [name=admin]'), '');
  await office.fill('#token-form [name=admin]', secrets.operatorStaffToken);
  await office.fill('#token-form [name=provider]', secrets.providerStaffToken);
  await office.click('#token-form button[type=submit]');
  // Attached, not visible: a free round lost draws a flat line, which has no height to be seen.
  await office.locator('#balance-chart svg polyline').waitFor({ state: 'attached', timeout: PAGE_WAIT_MS });
  assert.deepEqual(await office.$$eval('#outbox-status option', (options) => options.map((o) => o.textContent)), [...ITEM_STATUSES]);

  // The free bet moved nothing: its point is level with the deposit's before it (alice: a deposit, then the free round).
  const points = (await office.getAttribute('#balance-chart svg polyline', 'points'))!.split(' ').map((p) => Number(p.split(',')[1]));
  assert.ok(points.length >= 2);
  assert.equal(points[1], points[0], 'the free bet left the balance as it was');
  const labels = await office.$$eval('#balance-chart svg text', (texts) => texts.map((text) => text.textContent));
  assert.ok(labels.includes(String(afterFree.balance)) && labels.includes('100'), `the chart's highest and lowest are the real ones: ${labels.join(', ')}`);

  // The casino down: a payout's attempts show in the outbox and the codes chart without a click.
  await office.click('#outage');
  await office.locator('#outage[aria-pressed="true"]').waitFor({ timeout: PAGE_WAIT_MS });
  await office.selectOption('#outbox-status', 'parked');
  const paid = await fetch(`http://127.0.0.1:${providerPort}/admin/payouts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secrets.providerStaffToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ operatorId: 'sandbox-operator', playerId: 'alice', currency: 'EUR', amount: '2', campaignId: randomUUID() }),
  });
  assert.equal(paid.ok, true, await paid.text());
  await office.locator('#outbox tbody tr').first().waitFor({ timeout: PAGE_WAIT_MS });
  assert.match((await office.textContent('#outbox tbody tr'))!, /\/payout.*parked/);
  const metrics = await (await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${secrets.adminToken}` } })).text();
  const unavailable = [
    ...metrics.matchAll(
      /^wagerlink_http_request_duration_seconds_count\{route="\/(?:payout|transaction|authenticate)"[^}]*code="SERVICE_UNAVAILABLE"\} (\d+)$/gm,
    ),
  ].reduce((sum, m) => sum + Number(m[1]), 0);
  assert.ok(unavailable >= 1, 'the operator counted the refused attempts');
  await office.waitForFunction(
    (count) =>
      [...(globalThis as any).document.querySelectorAll('#codes-chart rect title')].some((title: any) => title.textContent === `SERVICE_UNAVAILABLE: ${count}`),
    unavailable,
    { timeout: PAGE_WAIT_MS },
  );
  await office.click('#outage');
  await office.screenshot({ path: `${ARTIFACTS}sandbox-backoffice-live-1280.png`, fullPage: true });
  assert.deepEqual(officeErrors, [], 'the back office threw no errors');
});
