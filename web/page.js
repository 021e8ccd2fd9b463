// What every game page of the provider shares: its texts and numbers in the
// page's language, money as exact decimal text, the call to the page's own
// API, the client seed, the fairness check's bytes, the toast, and the
// casino's lobby, deposit and refresh urls. A game's own file (game.js for
// dice, reels-page.js) draws its table and plays its rounds with these.

// Every text the pages show, by language (en is the fallback): data, so that translators need not read code.
import STRINGS from './strings.json' with { type: 'json' };

/**
 * The page's own sentence for each problem code of the registry
 * (src/protocol/errors.ts); a code not here gets pGeneric. The problem's
 * `detail` is for developers (the console): it is the provider's or the
 * casino's English, with ids a player has no use for.
 */
const PROBLEM_TEXT = {
  INSUFFICIENT_FUNDS: 'pFunds',
  SESSION_EXPIRED: 'pSession',
  INVALID_LAUNCH_KEY: 'pLink',
  INVALID_TOKEN: 'pLink',
  SESSION_NOT_FOUND: 'pLink',
  SESSION_MISMATCH: 'pLink',
  WALLET_NOT_FOUND: 'pLink',
  PLAYER_NOT_FOUND: 'pLink',
  PLAYER_BLOCKED: 'pBlocked',
  UNSUPPORTED_CURRENCY: 'pCurrency',
  GAME_NOT_FOUND: 'pGame',
  NOT_FOUND: 'pGame',
  SERVICE_UNAVAILABLE: 'pBusy',
  REQUEST_TIMEOUT: 'pBusy',
  INTERNAL_ERROR: 'pBusy',
  CAMPAIGN_FINISHED: 'pFree',
  RATE_LIMITED: 'pRate',
  INVALID_REQUEST: 'pBet',
  DUPLICATE_CONFLICT: 'pRound',
  ROUND_CLOSED: 'pRound',
  ROUND_MISMATCH: 'pRound',
  ROUND_UNFINISHED: 'pUnfinished',
  NETWORK: 'pNetwork',
};

const CLIENT_SEED_RE = /^[A-Za-z0-9_-]{1,64}$/;
/** How long a message stays in the toast (ms): long enough to read two sentences. */
const TOAST_MS = 5000;

/** The page's launch, language and formats; a game's file reads them, applyLanguage and setMoney write them. */
export const page = {
  /** The launch token: the URL's fragment, so the browser never sends it in a request line or a Referer header. */
  token: decodeURIComponent(location.hash.slice(1)),
  api: location.pathname.replace(/\/+$/, '') + '/api',
  strings: STRINGS.en,
  language: 'en',
  moneyFormat: null,
  /** The name the console's lines start with. */
  name: 'game',
};

// ------------------------------------------------------------------ text

export function t(key, vars = {}) {
  const text = page.strings[key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ''));
}

/** Sets the page's language (a BCP 47 tag; its base picks the strings) and translates every [data-i18n] node. */
export function applyLanguage(tag) {
  const base = String(tag || 'en')
    .toLowerCase()
    .split('-')[0];
  page.strings = STRINGS[base] ?? STRINGS.en;
  page.language = supportedTag(tag || 'en');
  document.documentElement.lang = tag || 'en';
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll('[data-i18n-label]')) node.setAttribute('aria-label', t(node.dataset.i18nLabel));
}

function supportedTag(tag) {
  try {
    Intl.NumberFormat.supportedLocalesOf([tag]);
    return tag;
  } catch {
    return 'en';
  }
}

/** A number format in the page's language. */
export function numberFormat(options) {
  return new Intl.NumberFormat(page.language, options);
}

/** The page's sentence for a problem, with the balance it carried in the locale's money format. */
export function problemText(problem) {
  const text = t(PROBLEM_TEXT[problem?.code] ?? 'pGeneric');
  if (problem?.balance === undefined || !page.moneyFormat) return text;
  return `${text} ${t('balanceIs', { balance: money(String(problem.balance)) })}`;
}

// ----------------------------------------------------------------- money

export function toMinor(text, decimals) {
  const [whole, fraction = ''] = String(text).split('.');
  return BigInt(whole + fraction.padEnd(decimals, '0').slice(0, decimals));
}

export function fromMinor(minor, decimals) {
  const digits = minor.toString().padStart(decimals + 1, '0');
  return decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/** Amounts from now on are shown in this currency, in the page's language. */
export function setMoney(currency, decimals) {
  const digits = { minimumFractionDigits: decimals, maximumFractionDigits: decimals };
  try {
    const format = new Intl.NumberFormat(page.language, { style: 'currency', currency, ...digits });
    page.moneyFormat = (text) => format.format(text);
  } catch {
    // Codes Intl does not take as a currency (USDT, ...): the number and the code.
    const format = new Intl.NumberFormat(page.language, digits);
    page.moneyFormat = (text) => `${format.format(text)} ${currency}`;
  }
}

/** An amount (exact decimal text) in the locale's money format; Intl takes the text as it is, so no float rounding. */
export function money(text) {
  return page.moneyFormat ? page.moneyFormat(String(text)) : String(text);
}

// ------------------------------------------------------------------- api

/** Throws an Error whose `problem` has the problem's code (NETWORK when nothing came back); its detail goes to the console only. */
export async function call(path, body) {
  let response;
  let text;
  try {
    response = await fetch(`${page.api}/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: page.token, ...body }),
    });
    text = await response.text();
  } catch (cause) {
    const error = new Error(`${path}: ${cause}`);
    error.problem = { code: 'NETWORK' };
    console.info(`${page.name}: ${error.message}`);
    throw error;
  }
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    data = { detail: text || `HTTP ${response.status}` };
  }
  if (!response.ok) {
    const error = new Error(data.detail || `HTTP ${response.status}`);
    error.problem = data;
    console.info(`${page.name}: ${path} answered ${response.status} ${data.code ?? ''}: ${error.message}`);
    throw error;
  }
  data.httpStatus = response.status;
  return data;
}

// ------------------------------------------------------------ fairness

export function hexToBytes(hex) {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

export function bytesToHex(bytes) {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Whether WebCrypto is there: a page served over plain http to another host has none. */
export function canVerify() {
  return Boolean(globalThis.crypto?.subtle);
}

/** The bet ladder as chips: a button per amount, `pick(index)` when one is pressed. */
export function ladderChips(ladder, pick) {
  return ladder.map((amount, index) => {
    const chip = document.createElement('button');
    chip.type = 'button';
    chip.className = 'chip';
    chip.dataset.index = String(index);
    chip.textContent = money(amount);
    chip.addEventListener('click', () => pick(index));
    return chip;
  });
}

/**
 * Opens the launch as every game page does: without a token, or when the
 * provider refuses it, the page says why on its overlay and this answers
 * undefined; otherwise it answers the session `open()` gave.
 */
export async function openLaunch(app, overlayText, open) {
  if (!page.token) {
    app.dataset.state = 'failed';
    overlayText.textContent = t('noToken');
    return undefined;
  }
  try {
    return await open();
  } catch (error) {
    app.dataset.state = 'failed';
    overlayText.textContent = `${t('failed')}. ${problemText(error.problem)}`;
    return undefined;
  }
}

/** The next round's commitment as the page shows it: the server seed's hash (whole in its title) and the nonce. */
export function showFairness(ui, fairness, countFormat) {
  ui.nextHash.textContent = fairness.serverSeedHash;
  ui.nextHash.title = fairness.serverSeedHash;
  ui.nonce.textContent = countFormat.format(fairness.nonce);
}

/**
 * The fairness mark of a round in the history: its seeds and nonce as the
 * title, and once its server seed is revealed, ✓ or ✗ from `verify` (a
 * promise of true, false, or null when this browser cannot check).
 */
export function fairnessMark(round, revealed, countText, verify) {
  const check = document.createElement('span');
  check.className = 'r-check';
  check.textContent = revealed ? '…' : '';
  check.title = `nonce ${countText}\nserver seed hash ${round.serverSeedHash}\nclient seed ${round.clientSeed}${revealed ? `\nserver seed ${round.serverSeed}` : ''}`;
  if (revealed) {
    verify(round).then((ok) => {
      check.textContent = ok === null ? '?' : ok ? '✓' : '✗';
      check.classList.add(ok ? 'ok' : ok === false ? 'bad' : 'unknown');
      check.title = `${ok === null ? t('cannotVerify') : ok ? t('verified') : t('notVerified')}\n${check.title}`;
    });
  }
  return check;
}

/** Whether a revealed server seed is the one committed to: SHA-256 of its bytes is the hash shown before the round. */
export async function seedMatchesHash(serverSeed, serverSeedHash) {
  const digest = await crypto.subtle.digest('SHA-256', hexToBytes(serverSeed));
  return bytesToHex(new Uint8Array(digest)) === serverSeedHash;
}

/**
 * A uniform integer in [0, n) as src/game/fairness.ts draws it: the first
 * 32-bit word below the largest multiple of n, of HMAC-SHA256(seed,
 * message), then of the same with ":1", ":2", ":3" appended; null when none
 * is (which SHA-256 makes unreachable).
 */
export async function uniformFromDigests(serverSeed, message, n) {
  const key = await crypto.subtle.importKey('raw', hexToBytes(serverSeed), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const limit = Math.floor(2 ** 32 / n) * n;
  for (let extra = 0; extra <= 3; extra++) {
    const digest = new DataView(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(extra === 0 ? message : `${message}:${extra}`)));
    for (let word = 0; word < 8; word++) {
      const value = digest.getUint32(word * 4);
      if (value < limit) return value % n;
    }
  }
  return null;
}

function newClientSeed() {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return bytesToHex(bytes);
}

export function isClientSeed(value) {
  return CLIENT_SEED_RE.test(value);
}

/** The client seed the player last used on this game (kept under `storageKey`), or a fresh one, saved. */
export function loadClientSeed(storageKey) {
  let seed;
  try {
    const saved = localStorage.getItem(storageKey);
    if (saved && isClientSeed(saved)) seed = saved;
  } catch {
    // Storage may be blocked inside a third-party iframe: a fresh seed is fine.
  }
  seed ??= newClientSeed();
  saveClientSeed(storageKey, seed);
  return seed;
}

export function saveClientSeed(storageKey, seed) {
  try {
    localStorage.setItem(storageKey, seed);
  } catch {
    // See loadClientSeed.
  }
}

/** Wires a client seed field: a valid entry is kept and saved, anything else puts the current seed back. */
export function wireClientSeed(input, storageKey, get, set) {
  input.value = get();
  input.addEventListener('change', () => {
    const value = input.value.trim();
    if (isClientSeed(value)) {
      set(value);
      saveClientSeed(storageKey, value);
    } else {
      input.value = get();
    }
  });
}

// ---------------------------------------------------------------- chrome

let toastTimer;
/** Shows a message in the page's #toast (role=alert) for a few seconds. */
export function toast(message) {
  const node = document.getElementById('toast');
  node.textContent = message;
  node.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    node.hidden = true;
  }, TOAST_MS);
}

export function setBalance(node, text, bump) {
  node.textContent = money(text);
  tellCasino({ type: 'balance' });
  if (bump) {
    node.classList.remove('bump');
    void node.offsetWidth;
    node.classList.add('bump');
  }
}

/** The casino's pages open in the top window: the game is usually in the casino's iframe. */
export function navigateTop(url) {
  try {
    window.top.location.href = url;
  } catch {
    window.location.href = url;
  }
}

/** Shows the lobby and deposit buttons the launch has urls for (deposit never in play money) and wires them. */
export function wireCasinoButtons(session, lobby, deposit) {
  lobby.hidden = !session.urls.lobby;
  deposit.hidden = !session.urls.deposit || session.mode === 'fun';
  lobby.onclick = () => navigateTop(session.urls.lobby);
  deposit.onclick = () => navigateTop(session.urls.deposit);
  watchCasinoFrame(session);
}

// ------------------------------------------------------- the casino's frame

/**
 * Where the page's messages to the casino's window go: the origin of the
 * casino's lobby url, when the page is in a frame and the launch named one;
 * otherwise nowhere. Naming the origin keeps them from any other page that
 * framed the game.
 */
let casinoOrigin = null;
/** The tallest frame the page asks for (CSS px): a page that grew without end must not stretch the casino's. */
const FRAME_HEIGHT_PX_MAX = 4000;

/**
 * Tells the casino's window what it may want to follow, as a message
 * `{ source: 'wagerlink-game', type, ... }`: `balance` after each change of
 * the balance the page shows (the casino reads its own wallet again: the
 * message carries no amount, so that a forged one could say nothing), and
 * `height` (CSS px) whenever the page's height changes, so that the casino
 * can size its frame to the game instead of scrolling inside it.
 */
export function tellCasino(message) {
  if (casinoOrigin === null) return;
  window.parent.postMessage({ source: 'wagerlink-game', ...message }, casinoOrigin);
}

function watchCasinoFrame(session) {
  if (window.parent === window || !session.urls.lobby || casinoOrigin !== null) return;
  try {
    casinoOrigin = new URL(session.urls.lobby).origin;
  } catch {
    return;
  }
  const app = document.getElementById('app');
  const tellHeight = () => tellCasino({ type: 'height', height: Math.min(FRAME_HEIGHT_PX_MAX, Math.ceil(app.getBoundingClientRect().height)) });
  new ResizeObserver(tellHeight).observe(app);
  tellHeight();
}

export function startRefresh(session) {
  const { refreshIntervalMs, urls } = session;
  if (!refreshIntervalMs || !urls.refresh) return;
  // The call's form is the casino's (the interface leaves it open: docs/protocol.md §8.1): a credentialed POST without a body.
  setInterval(() => {
    fetch(urls.refresh, { method: 'POST', mode: 'no-cors', credentials: 'include', keepalive: true }).catch(() => {});
  }, refreshIntervalMs);
}

export function isTextField(node) {
  if (node instanceof HTMLTextAreaElement || node?.isContentEditable) return true;
  return node instanceof HTMLInputElement && !['range', 'button', 'checkbox', 'radio', 'submit', 'reset'].includes(node.type);
}

export function isPressable(node) {
  return node instanceof HTMLButtonElement || node instanceof HTMLAnchorElement || node?.tagName === 'SUMMARY';
}

/** A button or summary acts on Space's keyup: where Space plays, that must be its only effect. */
export function keepSpaceForPlay() {
  document.addEventListener('keyup', (event) => {
    if (event.key === ' ' && !isTextField(event.target)) event.preventDefault();
  });
}
