// Dice, the game page. It talks HTTP only to the provider's own JSON API
// (<page>/api/open, <page>/api/play, <page>/api/state) and, when the casino gave one, calls
// urls.refresh to keep the player's casino session alive. The launch token
// is the URL's fragment: the browser never sends it in a request line or a
// Referer header. Amounts travel as decimal strings and are computed with
// BigInt, never floats.

// Every text the page shows, by language (en is the fallback): data, so that translators need not read code.
import STRINGS from './strings.json' with { type: 'json' };

const ROLL_OUTCOMES = 1000000n;
const RTP_SCALE = 10000n;
const WORD_LIMIT = Math.floor(2 ** 32 / 1e6) * 1e6;
/** The roll animation lasts at least this long, so a fast answer still reads as a roll (ms). */
const ROLL_ANIMATION_MS = 650;
const CLIENT_SEED_KEY = 'wagerlink.dice.clientSeed';


/**
 * The page's own sentence for each problem code of the registry
 * (src/protocol/errors.ts); a code not here gets pGeneric. The problem's
 * `detail` is for developers (the console): it is the provider's or the
 * casino's English, with ids a player has no use for.
 */
const PROBLEM_TEXT = {
  INSUFFICIENT_FUNDS: 'pFunds',
  SESSION_EXPIRED: 'pSession',
  INVALID_LAUNCH_KEY: 'pLink', INVALID_TOKEN: 'pLink', SESSION_NOT_FOUND: 'pLink', SESSION_MISMATCH: 'pLink',
  WALLET_NOT_FOUND: 'pLink', PLAYER_NOT_FOUND: 'pLink',
  PLAYER_BLOCKED: 'pBlocked',
  UNSUPPORTED_CURRENCY: 'pCurrency',
  GAME_NOT_FOUND: 'pGame', NOT_FOUND: 'pGame',
  SERVICE_UNAVAILABLE: 'pBusy', REQUEST_TIMEOUT: 'pBusy', INTERNAL_ERROR: 'pBusy',
  CAMPAIGN_FINISHED: 'pFree',
  RATE_LIMITED: 'pRate',
  INVALID_REQUEST: 'pBet',
  DUPLICATE_CONFLICT: 'pRound', ROUND_CLOSED: 'pRound', ROUND_MISMATCH: 'pRound',
  NETWORK: 'pNetwork',
};
/** How often the page asks after a round still being delivered (ms): the provider resends at least once a second meanwhile. */
const ROUND_POLL_MS = 1000;

const $ = (id) => document.getElementById(id);
const ui = {
  app: $('app'), title: $('title'), modeBadge: $('mode-badge'), balance: $('balance'), lobby: $('lobby'), deposit: $('deposit'),
  die: $('die'), roll: $('roll'), verdict: $('verdict'), winZone: $('win-zone'), marker: $('marker'),
  multiplier: $('multiplier'), under: $('under'), payout: $('payout'), chance: $('chance'), chanceOut: $('chance-out'),
  bet: $('bet'), betDown: $('bet-down'), betUp: $('bet-up'), chips: $('chips'), free: $('free'), freeTitle: $('free-title'),
  freeText: $('free-text'), freeBtn: $('free-btn'), rollBtn: $('roll-btn'), rounds: $('rounds'), roundsEmpty: $('rounds-empty'),
  nextHash: $('next-hash'), nonce: $('nonce'), clientSeed: $('client-seed'), rtpLine: $('rtp-line'), overlayText: $('overlay-text'), toast: $('toast'),
  rollReason: $('roll-reason'), trackScale: $('track-scale'),
};

const state = {
  token: decodeURIComponent(location.hash.slice(1)),
  api: location.pathname.replace(/\/+$/, '') + '/api',
  session: null,
  strings: STRINGS.en,
  moneyFormat: null,
  betIndex: 0,
  chancePct: 50,
  clientSeed: '',
  busy: false,
  /** The roundId of this launch's round still being delivered, or null. */
  pending: null,
  pollTimer: undefined,
  numbers: null,
};

// ------------------------------------------------------------------ text

function t(key, vars = {}) {
  const text = state.strings[key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ''));
}

function applyLanguage(tag) {
  const base = String(tag || 'en').toLowerCase().split('-')[0];
  state.strings = STRINGS[base] ?? STRINGS.en;
  document.documentElement.lang = tag || 'en';
  state.numbers = makeNumberFormats(tag || 'en');
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  ui.trackScale.replaceChildren(
    ...[0, 25, 50, 75, 100].map((value) => {
      const mark = document.createElement('span');
      mark.textContent = state.numbers.count.format(value);
      return mark;
    }),
  );
}

/** Every number the page shows goes through one of these, in the page's language. */
function makeNumberFormats(language) {
  let tag = language;
  try {
    Intl.NumberFormat.supportedLocalesOf([tag]);
  } catch {
    tag = 'en';
  }
  return {
    roll: new Intl.NumberFormat(tag, { minimumFractionDigits: 4, maximumFractionDigits: 4 }),
    rollShort: new Intl.NumberFormat(tag, { minimumFractionDigits: 2, maximumFractionDigits: 2, roundingMode: 'trunc' }),
    percent: new Intl.NumberFormat(tag, { style: 'percent', maximumFractionDigits: 0 }),
    count: new Intl.NumberFormat(tag, { maximumFractionDigits: 0 }),
    multiplier: new Intl.NumberFormat(tag, { minimumFractionDigits: 2, maximumFractionDigits: 4 }),
    rtp: new Intl.NumberFormat(tag, { maximumFractionDigits: 2 }),
  };
}

/** The page's sentence for a problem, with the balance it carried in the locale's money format. */
function problemText(problem) {
  const text = t(PROBLEM_TEXT[problem?.code] ?? 'pGeneric');
  if (problem?.balance === undefined || !state.moneyFormat) return text;
  return `${text} ${t('balanceIs', { balance: money(String(problem.balance)) })}`;
}

// ----------------------------------------------------------------- money

function toMinor(text, decimals) {
  const [whole, fraction = ''] = String(text).split('.');
  return BigInt(whole + fraction.padEnd(decimals, '0').slice(0, decimals));
}

function fromMinor(minor, decimals) {
  const digits = minor.toString().padStart(decimals + 1, '0');
  return decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

function makeMoneyFormat(language, currency, decimals) {
  const digits = { minimumFractionDigits: decimals, maximumFractionDigits: decimals };
  try {
    const format = new Intl.NumberFormat(language, { style: 'currency', currency, ...digits });
    return (text) => format.format(text);
  } catch {
    // Codes Intl does not take as a currency (USDT, ...): the number and the code.
    const format = new Intl.NumberFormat(language, digits);
    return (text) => `${format.format(text)} ${currency}`;
  }
}

function money(text) {
  return state.moneyFormat ? state.moneyFormat(String(text)) : String(text);
}

/** A roll (0 to 999999) as the locale writes 0.0000 to 99.9999; exact decimal text in, so no float rounding. */
function rollText(roll, short = false) {
  const text = `${Math.floor(roll / 10000)}.${String(roll % 10000).padStart(4, '0')}`;
  return (short ? state.numbers.rollShort : state.numbers.roll).format(text);
}

function percentText(pct) {
  return state.numbers.percent.format(pct / 100);
}

/** The same arithmetic as the server (src/game/dice.ts): win rounded down, chance from the win. */
function quote(betMinor, chancePct) {
  const rtp = BigInt(state.session.game.rtpBp);
  const win = (betMinor * rtp) / (BigInt(chancePct) * 100n);
  if (win === 0n) return null;
  let threshold = (rtp * betMinor * ROLL_OUTCOMES) / (win * RTP_SCALE);
  if (threshold > ROLL_OUTCOMES) threshold = ROLL_OUTCOMES;
  return { win, threshold: Number(threshold) };
}

// ------------------------------------------------------------------- api

/** Throws an Error whose `problem` has the problem's code (NETWORK when nothing came back); its detail goes to the console only. */
async function call(path, body) {
  let response;
  let text;
  try {
    response = await fetch(`${state.api}/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: state.token, ...body }),
    });
    text = await response.text();
  } catch (cause) {
    const error = new Error(`${path}: ${cause}`);
    error.problem = { code: 'NETWORK' };
    console.info(`dice: ${error.message}`);
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
    console.info(`dice: ${path} answered ${response.status} ${data.code ?? ''}: ${error.message}`);
    throw error;
  }
  return data;
}

// ------------------------------------------------------------ fairness

function hexToBytes(hex) {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

function bytesToHex(bytes) {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Recomputes a revealed round (src/game/fairness.ts): true, false, or null when WebCrypto is unavailable. */
async function verifyRound(round) {
  if (!globalThis.crypto?.subtle || round.serverSeed === undefined) return null;
  const seed = hexToBytes(round.serverSeed);
  const hash = bytesToHex(new Uint8Array(await crypto.subtle.digest('SHA-256', seed)));
  if (hash !== round.serverSeedHash) return false;
  const key = await crypto.subtle.importKey('raw', seed, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  for (let extra = 0; extra <= 3; extra++) {
    const message = extra === 0 ? `${round.clientSeed}:${round.nonce}` : `${round.clientSeed}:${round.nonce}:${extra}`;
    const digest = new DataView(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(message)));
    for (let word = 0; word < 8; word++) {
      const value = digest.getUint32(word * 4);
      if (value < WORD_LIMIT) return value % 1000000 === round.roll;
    }
  }
  return false;
}

function newClientSeed() {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return bytesToHex(bytes);
}

function loadClientSeed() {
  try {
    const saved = localStorage.getItem(CLIENT_SEED_KEY);
    if (saved && /^[A-Za-z0-9_-]{1,64}$/.test(saved)) return saved;
  } catch {
    // Storage may be blocked inside a third-party iframe: a fresh seed is fine.
  }
  return newClientSeed();
}

function saveClientSeed(seed) {
  try {
    localStorage.setItem(CLIENT_SEED_KEY, seed);
  } catch {
    // See loadClientSeed.
  }
}

// ---------------------------------------------------------------- render

function currentBetMinor() {
  return toMinor(state.session.ladder[state.betIndex], state.session.decimals);
}

function setBalance(text, bump) {
  ui.balance.textContent = money(text);
  if (bump) {
    ui.balance.classList.remove('bump');
    void ui.balance.offsetWidth;
    ui.balance.classList.add('bump');
  }
}

function renderQuote() {
  const session = state.session;
  const bet = currentBetMinor();
  ui.bet.textContent = money(session.ladder[state.betIndex]);
  ui.chanceOut.textContent = percentText(state.chancePct);
  ui.betDown.disabled = state.busy || state.betIndex === 0;
  ui.betUp.disabled = state.busy || state.betIndex === session.ladder.length - 1;
  for (const chip of ui.chips.children) chip.setAttribute('aria-pressed', String(Number(chip.dataset.index) === state.betIndex));
  const q = quote(bet, state.chancePct);
  if (!q) {
    ui.multiplier.textContent = '—';
    ui.under.textContent = '—';
    ui.payout.textContent = '—';
    ui.rollBtn.disabled = true;
    return;
  }
  const multiplierE4 = (q.win * 10000n) / bet;
  ui.multiplier.textContent = `${state.numbers.multiplier.format(fromMinor(multiplierE4, 4))}×`;
  ui.under.textContent = rollText(q.threshold);
  ui.payout.textContent = money(fromMinor(q.win, session.decimals));
  ui.winZone.style.width = `${(q.threshold / 1e6) * 100}%`;
  ui.rollBtn.disabled = state.busy || state.pending !== null;
  ui.rollReason.hidden = state.pending === null;
}

function renderFree() {
  const free = state.session.freeRounds;
  ui.free.hidden = !free;
  if (free) {
    ui.freeTitle.textContent = t('freeTitle');
    ui.freeText.textContent = t('freeText', { left: state.numbers.count.format(free.left), bet: money(free.bet) });
  }
  ui.freeBtn.disabled = state.busy || state.pending !== null;
}

function renderFairness() {
  ui.nextHash.textContent = state.session.fairness.serverSeedHash;
  ui.nextHash.title = state.session.fairness.serverSeedHash;
  ui.nonce.textContent = state.numbers.count.format(state.session.fairness.nonce);
}

function roundItem(round) {
  const item = document.createElement('li');
  const settled = round.status === 'settled';
  const won = settled && toMinor(round.win, state.session.decimals) > 0n;
  item.className = settled ? (won ? 'win' : 'lose') : 'pending';
  const left = document.createElement('div');
  const roll = document.createElement('span');
  roll.className = 'r-roll';
  roll.textContent = settled ? rollText(round.roll, true) : '··.··';
  left.append(roll);
  if (round.free) {
    const free = document.createElement('span');
    free.className = 'r-free';
    free.textContent = t('freeTag');
    left.append(free);
  }
  const meta = document.createElement('span');
  meta.className = 'r-meta';
  meta.textContent = `${percentText(round.chancePct)} · ${money(round.bet)}`;
  left.append(meta);
  const win = document.createElement('span');
  win.className = 'r-win';
  win.textContent = !settled ? t('delivering') : won ? `+${money(round.win)}` : round.free ? money('0') : `−${money(round.bet)}`;
  const check = document.createElement('span');
  check.className = 'r-check';
  check.textContent = settled ? '…' : '';
  check.title = `nonce ${state.numbers.count.format(round.nonce)}\nserver seed hash ${round.serverSeedHash}\nclient seed ${round.clientSeed}${settled ? `\nserver seed ${round.serverSeed}` : ''}`;
  item.append(left, win, check);
  if (settled) {
    verifyRound(round).then((ok) => {
      check.textContent = ok === null ? '?' : ok ? '✓' : '✗';
      check.classList.add(ok ? 'ok' : ok === false ? 'bad' : 'unknown');
      check.title = `${ok === null ? t('cannotVerify') : ok ? t('verified') : t('notVerified')}\n${check.title}`;
    });
  }
  return item;
}

function renderRounds() {
  ui.rounds.replaceChildren(...state.session.rounds.map(roundItem));
  ui.roundsEmpty.hidden = state.session.rounds.length > 0;
}

function renderSession() {
  const session = state.session;
  applyLanguage(session.language);
  state.moneyFormat = makeMoneyFormat(session.language, session.currency, session.decimals);
  document.title = session.game.title;
  ui.title.textContent = session.game.title;
  ui.modeBadge.hidden = session.mode !== 'fun';
  ui.lobby.hidden = !session.urls.lobby;
  ui.deposit.hidden = !session.urls.deposit || session.mode === 'fun';
  ui.chance.min = String(session.game.chancePctMin);
  ui.chance.max = String(session.game.chancePctMax);
  state.chancePct = Math.min(session.game.chancePctMax, Math.max(session.game.chancePctMin, state.chancePct));
  ui.chance.value = String(state.chancePct);
  state.betIndex = Math.max(0, session.ladder.indexOf(session.defaultBet));
  ui.chips.replaceChildren(
    ...session.ladder.map((amount, index) => {
      const chip = document.createElement('button');
      chip.type = 'button';
      chip.className = 'chip';
      chip.dataset.index = String(index);
      chip.textContent = money(amount);
      chip.addEventListener('click', () => {
        state.betIndex = index;
        renderQuote();
      });
      return chip;
    }),
  );
  ui.rtpLine.textContent = t('rtp', {
    rtp: state.numbers.rtp.format(fromMinor(BigInt(session.game.rtpBp), 2)),
    volatility: t(session.game.volatility),
  });
  ui.clientSeed.value = state.clientSeed;
  setBalance(session.balance, false);
  const last = session.rounds.find((round) => round.status === 'settled');
  if (last) showRoll(last, false);
  else ui.marker.hidden = true;
  // A reload while a round is being delivered follows it as the play that left it would have.
  const pending = session.rounds.find((round) => round.status === 'pending');
  if (pending) showPending(pending);
  renderQuote();
  renderFree();
  renderFairness();
  renderRounds();
}

/** Shows a round the casino has not answered yet, and asks after it until it lands or is refused. */
function showPending(round) {
  state.pending = round.roundId;
  ui.app.dataset.result = 'pending';
  ui.roll.textContent = '…';
  ui.verdict.textContent = t('roundPending');
  clearTimeout(state.pollTimer);
  state.pollTimer = setTimeout(followPending, ROUND_POLL_MS);
}

async function followPending() {
  let session;
  try {
    session = await call('state', {});
  } catch {
    // The game server is unreachable or busy: the round is kept there, so ask again.
    state.pollTimer = setTimeout(followPending, ROUND_POLL_MS);
    return;
  }
  const round = session.rounds.find((r) => r.roundId === state.pending);
  if (round?.status === 'pending') {
    state.pollTimer = setTimeout(followPending, ROUND_POLL_MS);
    return;
  }
  state.pending = null;
  state.session.balance = session.balance;
  state.session.rounds = session.rounds;
  state.session.fairness = session.fairness;
  state.session.freeRounds = session.freeRounds;
  if (round) {
    showRoll(round, true);
  } else {
    // Gone from the rounds: the casino refused it, and it never happened.
    ui.app.dataset.result = 'refused';
    ui.roll.textContent = '--.----';
    ui.verdict.textContent = t('roundRefused');
  }
  setBalance(session.balance, true);
  renderQuote();
  renderFree();
  renderFairness();
  renderRounds();
}

function showRoll(round, announce) {
  ui.roll.textContent = rollText(round.roll);
  ui.marker.hidden = false;
  ui.marker.style.left = `${(round.roll / 1e6) * 100}%`;
  ui.die.dataset.face = String(1 + Math.floor(round.roll / (1e6 / 6)));
  const won = toMinor(round.win, state.session.decimals) > 0n;
  if (announce) {
    ui.app.dataset.result = won ? 'win' : 'lose';
    ui.verdict.textContent = won ? t('win', { amount: money(round.win) }) : t('lose', { roll: rollText(round.roll), under: rollText(round.threshold) });
  }
}

let toastTimer;
function toast(message) {
  ui.toast.textContent = message;
  ui.toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    ui.toast.hidden = true;
  }, 5000);
}

function setBusy(busy) {
  state.busy = busy;
  renderQuote();
  renderFree();
}

// ------------------------------------------------------------------ play

async function play(free) {
  if (state.busy || !state.session || state.pending !== null) return;
  if (free && !state.session.freeRounds) return;
  setBusy(true);
  ui.app.dataset.result = '';
  ui.die.classList.add('rolling');
  const spin = setInterval(() => {
    ui.roll.textContent = rollText(Math.floor(Math.random() * 1e6));
    ui.die.dataset.face = String(1 + Math.floor(Math.random() * 6));
  }, 55);
  const started = performance.now();
  try {
    const bet = free ? state.session.freeRounds.bet : state.session.ladder[state.betIndex];
    const result = await call('play', { bet, chancePct: state.chancePct, clientSeed: state.clientSeed, free });
    const wait = ROLL_ANIMATION_MS - (performance.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    clearInterval(spin);
    ui.die.classList.remove('rolling');
    state.session.fairness = result.fairness;
    state.session.freeRounds = result.freeRounds;
    state.session.balance = result.balance;
    state.session.rounds = [result.round, ...state.session.rounds.filter((r) => r.roundId !== result.round.roundId)].slice(0, 20);
    if (result.round.status === 'pending') showPending(result.round);
    else showRoll(result.round, true);
    setBalance(result.balance, result.round.status !== 'pending');
    renderFairness();
    renderRounds();
  } catch (error) {
    clearInterval(spin);
    ui.die.classList.remove('rolling');
    ui.roll.textContent = '--.----';
    ui.verdict.textContent = t('ready');
    if (error.problem && error.problem.balance !== undefined) setBalance(String(error.problem.balance), false);
    toast(problemText(error.problem));
  } finally {
    setBusy(false);
  }
}

// ---------------------------------------------------------------- wiring

function stepBet(delta) {
  const next = state.betIndex + delta;
  if (!state.session || state.busy || next < 0 || next >= state.session.ladder.length) return;
  state.betIndex = next;
  renderQuote();
}

function stepChance(delta) {
  if (!state.session || state.busy) return;
  const next = Math.min(state.session.game.chancePctMax, Math.max(state.session.game.chancePctMin, state.chancePct + delta));
  state.chancePct = next;
  ui.chance.value = String(next);
  renderQuote();
}

function navigateTop(url) {
  try {
    window.top.location.href = url;
  } catch {
    window.location.href = url;
  }
}

function wire() {
  ui.rollBtn.addEventListener('click', () => play(false));
  ui.freeBtn.addEventListener('click', () => play(true));
  ui.betDown.addEventListener('click', () => stepBet(-1));
  ui.betUp.addEventListener('click', () => stepBet(1));
  ui.chance.addEventListener('input', () => {
    state.chancePct = Number(ui.chance.value);
    renderQuote();
  });
  ui.lobby.addEventListener('click', () => navigateTop(state.session.urls.lobby));
  ui.deposit.addEventListener('click', () => navigateTop(state.session.urls.deposit));
  ui.clientSeed.addEventListener('change', () => {
    const value = ui.clientSeed.value.trim();
    if (/^[A-Za-z0-9_-]{1,64}$/.test(value)) {
      state.clientSeed = value;
      saveClientSeed(value);
    } else {
      ui.clientSeed.value = state.clientSeed;
    }
  });
  document.addEventListener('keydown', (event) => {
    const target = event.target;
    if (isTextField(target) || event.ctrlKey || event.metaKey || event.altKey) return;
    const onSlider = target === ui.chance;
    if (event.key === ' ') {
      // Space rolls wherever focus is: it neither scrolls nor presses the focused control (a chip, Lobby, Deposit).
      event.preventDefault();
      if (!event.repeat) play(false);
    } else if (event.key === 'Enter') {
      // Enter stays the key that presses a focused control, so the keyboard can still reach Lobby, Deposit and the
      // chips; elsewhere it rolls. (On the focused Roll button both are the same.)
      if (isPressable(target)) return;
      event.preventDefault();
      if (!event.repeat) play(false);
    } else if ((event.key === 'ArrowLeft' || event.key === 'ArrowRight') && !onSlider) {
      event.preventDefault();
      stepBet(event.key === 'ArrowLeft' ? -1 : 1);
    } else if ((event.key === 'ArrowUp' || event.key === 'ArrowDown') && !onSlider) {
      event.preventDefault();
      stepChance(event.key === 'ArrowDown' ? -1 : 1);
    } else if (event.key === 'f' || event.key === 'F') {
      play(true);
    }
  });
  // A button or summary acts on Space's keyup: the roll was Space's only effect.
  document.addEventListener('keyup', (event) => {
    if (event.key === ' ' && !isTextField(event.target)) event.preventDefault();
  });
}

function isTextField(node) {
  if (node instanceof HTMLTextAreaElement || node?.isContentEditable) return true;
  return node instanceof HTMLInputElement && !['range', 'button', 'checkbox', 'radio', 'submit', 'reset'].includes(node.type);
}

function isPressable(node) {
  return node instanceof HTMLButtonElement || node instanceof HTMLAnchorElement || node?.tagName === 'SUMMARY';
}

function startRefresh() {
  const { refreshIntervalMs, urls } = state.session;
  if (!refreshIntervalMs || !urls.refresh) return;
  // The call's form is the casino's (the interface leaves it open: docs/protocol.md §8.1): a credentialed POST without a body.
  setInterval(() => {
    fetch(urls.refresh, { method: 'POST', mode: 'no-cors', credentials: 'include', keepalive: true }).catch(() => {});
  }, refreshIntervalMs);
}

async function start() {
  applyLanguage(navigator.language);
  wire();
  state.clientSeed = loadClientSeed();
  saveClientSeed(state.clientSeed);
  if (!state.token) {
    ui.app.dataset.state = 'failed';
    ui.overlayText.textContent = t('noToken');
    return;
  }
  try {
    state.session = await call('open', {});
  } catch (error) {
    ui.app.dataset.state = 'failed';
    ui.overlayText.textContent = `${t('failed')}. ${problemText(error.problem)}`;
    return;
  }
  renderSession();
  ui.app.dataset.state = 'ready';
  startRefresh();
  ui.rollBtn.focus({ preventScroll: true });
}

start();
