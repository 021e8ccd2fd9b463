// Reels, the game page: a 3x3 window, five lines, a free-spins feature played
// spin by spin, a jackpot. It talks HTTP only to the provider's JSON API
// through reels-api.js (every field name of the wire is there), and shares
// its texts, money, client seed and casino buttons with dice (page.js).
// Amounts travel as decimal strings and are computed with BigInt, never floats.

import {
  applyLanguage,
  call,
  canVerify,
  fairnessMark,
  ladderChips,
  openLaunch,
  isTextField,
  keepSpaceForPlay,
  loadClientSeed,
  money,
  numberFormat,
  page,
  problemText,
  seedMatchesHash,
  setBalance,
  setMoney,
  showFairness,
  startRefresh,
  t,
  toast,
  toMinor,
  uniformFromDigests,
  wireCasinoButtons,
  wireClientSeed,
} from './page.js';
import { LINES, reelsApi, STRIPS, windowOf } from './reels-api.js';

const CLIENT_SEED_KEY = 'wagerlink.reels.clientSeed';
/** The spin animation lasts at least this long, so a fast answer still reads as a spin (ms). */
const SPIN_ANIMATION_MS = 650;
/** How often the reels change symbol while spinning (ms). */
const SPIN_FRAME_MS = 70;
/** How often the page asks after a round still being delivered (ms): the provider resends at least once a second meanwhile. */
const ROUND_POLL_MS = 1000;
/** Rounds the history keeps: as many as the provider's session view shows. */
const ROUNDS_SHOWN_MAX = 20;
/** Symbols a spinning reel cycles through: every letter the strips hold. */
const SPIN_SYMBOLS = [...new Set(STRIPS.join(''))];

const $ = (id) => document.getElementById(id);
const ui = {
  app: $('app'),
  title: $('title'),
  modeBadge: $('mode-badge'),
  balance: $('balance'),
  lobby: $('lobby'),
  deposit: $('deposit'),
  jackpot: $('jackpot'),
  window: $('window'),
  paylines: $('paylines'),
  verdict: $('verdict'),
  lineWins: $('line-wins'),
  featureBar: $('feature-bar'),
  featureText: $('feature-text'),
  featureBtn: $('feature-btn'),
  bet: $('bet'),
  betDown: $('bet-down'),
  betUp: $('bet-up'),
  chips: $('chips'),
  free: $('free'),
  freeTitle: $('free-title'),
  freeText: $('free-text'),
  freeBtn: $('free-btn'),
  spinBtn: $('spin-btn'),
  spinReason: $('spin-reason'),
  rounds: $('rounds'),
  roundsEmpty: $('rounds-empty'),
  nextHash: $('next-hash'),
  nonce: $('nonce'),
  clientSeed: $('client-seed'),
  rtpLine: $('rtp-line'),
  overlayText: $('overlay-text'),
};

const api = reelsApi(call);
const state = {
  session: null,
  betIndex: 0,
  clientSeed: '',
  busy: false,
  /** The round whose feature has spins left to play, or null. */
  feature: null,
  /** The roundId of this launch's round still being delivered, or null. */
  pending: null,
  pollTimer: undefined,
  numbers: null,
  /** The window last shown of a spin: the reels go back to it when a play fails. */
  shownWindow: STRIPS.map((strip) => [strip[strip.length - 1], strip[0], strip[1]]),
};

// --------------------------------------------------------------- symbols

const SVG = 'http://www.w3.org/2000/svg';
function svgNode(name, attributes, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Each symbol's name (a strings.json key) and its drawing in a 100x100 box: shapes, no font or image to load. */
const SYMBOLS = {
  7: {
    name: 'symSeven',
    draw: () => [
      svgNode(
        'text',
        { x: 50, y: 74, 'text-anchor': 'middle', 'font-size': 72, 'font-weight': 900, fill: '#ef4444', stroke: '#7f1d1d', 'stroke-width': 3 },
        '7',
      ),
    ],
  },
  B: {
    name: 'symBar',
    draw: () => [
      svgNode('rect', { x: 10, y: 32, width: 80, height: 36, rx: 6, fill: '#1e293b', stroke: '#e2e8f0', 'stroke-width': 4 }),
      svgNode('text', { x: 50, y: 60, 'text-anchor': 'middle', 'font-size': 26, 'font-weight': 900, fill: '#e2e8f0' }, 'BAR'),
    ],
  },
  L: {
    name: 'symBell',
    draw: () => [
      svgNode('path', {
        d: 'M50 14 C30 14 26 34 26 50 C26 62 20 68 14 74 L86 74 C80 68 74 62 74 50 C74 34 70 14 50 14 Z',
        fill: '#fbbf24',
        stroke: '#92400e',
        'stroke-width': 3,
      }),
      svgNode('circle', { cx: 50, cy: 82, r: 8, fill: '#92400e' }),
    ],
  },
  P: {
    name: 'symPlum',
    draw: () => [
      svgNode('circle', { cx: 50, cy: 56, r: 30, fill: '#7c3aed', stroke: '#4c1d95', 'stroke-width': 3 }),
      svgNode('path', { d: 'M50 26 Q56 14 66 12', stroke: '#166534', 'stroke-width': 5, fill: 'none' }),
    ],
  },
  O: {
    name: 'symOrange',
    draw: () => [
      svgNode('circle', { cx: 50, cy: 54, r: 32, fill: '#f97316', stroke: '#9a3412', 'stroke-width': 3 }),
      svgNode('ellipse', { cx: 58, cy: 20, rx: 12, ry: 6, fill: '#22c55e' }),
    ],
  },
  M: { name: 'symLemon', draw: () => [svgNode('ellipse', { cx: 50, cy: 52, rx: 38, ry: 26, fill: '#facc15', stroke: '#a16207', 'stroke-width': 3 })] },
  C: {
    name: 'symCherry',
    draw: () => [
      svgNode('path', { d: 'M32 62 Q40 30 62 16 M70 62 Q66 36 62 16', stroke: '#166534', 'stroke-width': 5, fill: 'none' }),
      svgNode('circle', { cx: 30, cy: 68, r: 17, fill: '#dc2626', stroke: '#7f1d1d', 'stroke-width': 3 }),
      svgNode('circle', { cx: 70, cy: 68, r: 17, fill: '#dc2626', stroke: '#7f1d1d', 'stroke-width': 3 }),
    ],
  },
  '-': { name: 'symBlank', draw: () => [] },
  S: {
    name: 'symStar',
    draw: () => [
      svgNode('polygon', { points: '50,8 61,38 93,38 67,57 77,88 50,69 23,88 33,57 7,38 39,38', fill: '#fde047', stroke: '#ca8a04', 'stroke-width': 3 }),
    ],
  },
  J: {
    name: 'symCrown',
    draw: () => [
      svgNode('polygon', { points: '12,76 16,30 34,52 50,20 66,52 84,30 88,76', fill: '#f59e0b', stroke: '#78350f', 'stroke-width': 3 }),
      svgNode('rect', { x: 12, y: 76, width: 76, height: 10, fill: '#b45309' }),
    ],
  },
};

function symbolName(letter) {
  return t(SYMBOLS[letter]?.name ?? 'symBlank');
}

function symbolCell(letter) {
  const cell = document.createElement('div');
  cell.className = 'cell';
  cell.dataset.symbol = letter;
  const art = svgNode('svg', { viewBox: '0 0 100 100', 'aria-hidden': 'true' });
  art.append(...(SYMBOLS[letter]?.draw() ?? []));
  cell.append(art);
  return cell;
}

// ---------------------------------------------------------------- window

/** Draws window[reel][row]; the cells of paying lines marked, the paying lines drawn over it. */
function drawWindow(window, paid = []) {
  const onLine = new Set(paid.flatMap((line) => LINES[line - 1].map((row, reel) => `${reel}:${row}`)));
  const cells = [];
  for (let row = 0; row < 3; row++) {
    for (let reel = 0; reel < 3; reel++) {
      const cell = symbolCell(window[reel][row]);
      if (onLine.has(`${reel}:${row}`)) cell.classList.add('hit');
      cells.push(cell);
    }
  }
  ui.window.replaceChildren(...cells);
  ui.window.setAttribute(
    'aria-label',
    window.map((symbols, reel) => t('reelLabel', { reel: reel + 1, symbols: symbols.map(symbolName).join(', ') })).join('; '),
  );
  ui.paylines.replaceChildren(
    ...LINES.map((rows, index) =>
      svgNode('polyline', {
        points: rows.map((row, reel) => `${reel * 100 + 50},${row * 100 + 50}`).join(' '),
        class: paid.includes(index + 1) ? 'paid' : '',
        'data-line': index + 1,
      }),
    ),
  );
  for (const tag of document.querySelectorAll('.line-tags li')) tag.classList.toggle('paid', paid.includes(Number(tag.dataset.line)));
}

function randomWindow() {
  return [0, 1, 2].map(() => [0, 1, 2].map(() => SPIN_SYMBOLS[Math.floor(Math.random() * SPIN_SYMBOLS.length)]));
}

/** Cycles random symbols until the returned stop function is called. */
function animateSpin() {
  ui.window.classList.add('spinning');
  drawWindow(randomWindow());
  const timer = setInterval(() => drawWindow(randomWindow()), SPIN_FRAME_MS);
  const started = performance.now();
  return async () => {
    const wait = SPIN_ANIMATION_MS - (performance.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    clearInterval(timer);
    ui.window.classList.remove('spinning');
  };
}

/** Shows a spin: its window, its paying lines listed with their wins. */
function showSpin(spin) {
  ui.window.classList.remove('waiting');
  state.shownWindow = spin.window;
  drawWindow(
    spin.window,
    spin.lines.map((line) => line.line),
  );
  ui.lineWins.replaceChildren(
    ...spin.lines.map((line) => {
      const item = document.createElement('li');
      item.textContent = t('lineWin', { line: state.numbers.count.format(line.line), symbols: [...line.symbols].map(symbolName).join(' ') });
      return item;
    }),
  );
}

// ---------------------------------------------------------------- render

function currentBet() {
  return state.session.ladder[state.betIndex];
}

function renderControls() {
  const session = state.session;
  const blocked = state.busy || state.pending !== null || state.feature !== null;
  ui.bet.textContent = money(currentBet());
  ui.betDown.disabled = blocked || state.betIndex === 0;
  ui.betUp.disabled = blocked || state.betIndex === session.ladder.length - 1;
  for (const chip of ui.chips.children) {
    chip.setAttribute('aria-pressed', String(Number(chip.dataset.index) === state.betIndex));
    chip.disabled = blocked;
  }
  ui.spinBtn.disabled = blocked;
  const reason = state.pending !== null ? 'spinPaused' : state.feature !== null ? 'spinFeature' : null;
  ui.spinReason.hidden = reason === null;
  if (reason) ui.spinReason.textContent = t(reason);
  const free = session.freeRounds;
  ui.free.hidden = !free;
  if (free) {
    ui.freeTitle.textContent = t('freeTitle');
    ui.freeText.textContent = t('freeText', { left: state.numbers.count.format(free.left), bet: money(free.bet) });
  }
  ui.freeBtn.disabled = blocked;
  renderFeature();
}

/** The feature's bar and its button "Free spin n of m" while the round has spins left. */
function renderFeature() {
  const round = state.feature;
  ui.featureBtn.hidden = round === null;
  ui.featureBar.hidden = round === null;
  if (!round) return;
  const { played, total } = round.feature;
  ui.featureBtn.textContent = t('freeSpinOf', { n: state.numbers.count.format(played + 1), m: state.numbers.count.format(total) });
  ui.featureBtn.disabled = state.busy || state.pending !== null;
  ui.featureText.textContent = t('featureText', {
    played: state.numbers.count.format(played),
    total: state.numbers.count.format(total),
    win: money(round.feature.win),
  });
}

function renderJackpot() {
  ui.jackpot.textContent = state.session.jackpot === null ? '—' : money(state.session.jackpot);
}

function roundItem(round) {
  const item = document.createElement('li');
  const decimals = state.session.decimals;
  const win = round.win === null ? 0n : toMinor(round.win, decimals);
  const open = round.featureLeft > 0;
  item.className = round.delivering ? 'pending' : open ? 'open' : win > 0n ? 'win' : 'lose';
  const left = document.createElement('div');
  const symbols = document.createElement('span');
  symbols.className = 'r-roll r-symbols';
  // The base spin's middle row, small: what a player recognises a round by.
  if (round.base) symbols.append(...round.base.window.map((reel) => symbolCell(reel[1])));
  else symbols.textContent = '· · ·';
  symbols.setAttribute('role', 'img');
  symbols.setAttribute('aria-label', round.base ? round.base.window.map((reel) => symbolName(reel[1])).join(', ') : t('delivering'));
  left.append(symbols);
  const tag = (key) => {
    const node = document.createElement('span');
    node.className = 'r-free';
    node.textContent = t(key);
    left.append(node);
  };
  if (round.free) tag('freeTag');
  if (round.feature && round.base) tag('featureTag');
  if (round.jackpotWin !== null && toMinor(round.jackpotWin, decimals) > 0n) tag('jackpotTag');
  const meta = document.createElement('span');
  meta.className = 'r-meta';
  meta.textContent =
    round.feature && round.base
      ? `${money(round.bet)} · ${t('spinsPlayed', { played: state.numbers.count.format(round.feature.played), total: state.numbers.count.format(round.feature.total) })}`
      : money(round.bet);
  left.append(meta);
  const result = document.createElement('span');
  result.className = 'r-win';
  result.textContent = round.delivering
    ? t('delivering')
    : open
      ? t('featureOpen')
      : win > 0n
        ? `+${money(round.win)}`
        : round.free
          ? money('0')
          : `−${money(round.bet)}`;
  item.append(left, result, fairnessMark(round, round.serverSeed !== undefined, state.numbers.count.format(round.nonce), verifyRound));
  return item;
}

function renderRounds() {
  ui.rounds.replaceChildren(...state.session.rounds.map(roundItem));
  ui.roundsEmpty.hidden = state.session.rounds.length > 0;
}

function renderAll() {
  renderControls();
  renderJackpot();
  showFairness(ui, state.session.fairness, state.numbers.count);
  renderRounds();
}

// ------------------------------------------------------------ fairness

/**
 * Recomputes a revealed round (src/game/fairness.ts, src/game/reels.ts): the
 * seed is the one committed to, and each spin's window is the strips at the
 * stops drawn in order (reels 1, 2, 3 of the base spin, then of each free
 * spin). True, false, or null when WebCrypto is unavailable.
 */
async function verifyRound(round) {
  if (!canVerify()) return null;
  if (!(await seedMatchesHash(round.serverSeed, round.serverSeedHash))) return false;
  const spins = [round.base, ...(round.feature?.spins ?? [])].filter(Boolean);
  let index = 0;
  for (const spin of spins) {
    const stops = [];
    for (const strip of STRIPS) stops.push(await uniformFromDigests(round.serverSeed, `${round.clientSeed}:${round.nonce}:draw:${index++}`, strip.length));
    if (JSON.stringify(windowOf(stops)) !== JSON.stringify(spin.window)) return false;
  }
  return true;
}

// ------------------------------------------------------------------ play

/** Keeps the session's figures from an answer of play or free-spin, and the round first in the history. */
function absorb(result) {
  const session = state.session;
  session.balance = result.balance;
  session.fairness = result.fairness ?? session.fairness;
  session.freeRounds = result.freeRounds;
  if (result.jackpot !== null) session.jackpot = result.jackpot;
  session.rounds = [result.round, ...session.rounds.filter((r) => r.roundId !== result.round.roundId)].slice(0, ROUNDS_SHOWN_MAX);
}

/** What the page says of a round it just showed (base spin, free spin or its end), in the result area (aria-live). */
function announce(round, spin) {
  const decimals = state.session.decimals;
  const jackpot = round.jackpotWin !== null && toMinor(round.jackpotWin, decimals) > 0n;
  const featureDone = round.feature && round.featureLeft === 0 && spin !== round.base;
  let text;
  let result;
  if (jackpot && spin === round.base) {
    text = t('jackpotWon', { amount: money(round.jackpotWin) });
    result = 'win';
  } else if (featureDone) {
    text = t(round.feature.completed ? 'featureDoneProvider' : 'featureDone', { amount: money(round.feature.win) });
    result = 'win';
  } else if (spin.awarded > 0) {
    text =
      spin === round.base
        ? t('featureStart', { spins: state.numbers.count.format(spin.awarded) })
        : t('featureMore', { spins: state.numbers.count.format(spin.awarded) });
    result = 'win';
  } else if (toMinor(spin.win, decimals) > 0n) {
    text = t('spinWin', { amount: money(spin.win) });
    result = 'win';
  } else {
    text = t('noWin');
    result = 'lose';
  }
  ui.app.dataset.result = result;
  ui.verdict.textContent = text;
}

/** Shows the round an answer carried: delivering, its feature to play, or its outcome. */
function showRound(round, lastSpin) {
  state.feature = round.featureLeft > 0 ? round : null;
  if (round.delivering) {
    showPending(round);
    return;
  }
  showSpin(lastSpin);
  announce(round, lastSpin);
}

function lastRevealedSpin(round) {
  const spins = round.feature?.spins ?? [];
  return spins.length > 0 ? spins[spins.length - 1] : round.base;
}

async function spin(free) {
  if (state.busy || !state.session || state.pending !== null || state.feature !== null) return;
  if (free && !state.session.freeRounds) return;
  setBusy(true);
  ui.app.dataset.result = '';
  ui.lineWins.replaceChildren();
  const stop = animateSpin();
  try {
    const result = await api.play({ bet: free ? state.session.freeRounds.bet : currentBet(), free, clientSeed: state.clientSeed });
    await stop();
    absorb(result);
    showRound(result.round, result.round.base);
    setBalance(ui.balance, result.balance, !result.round.delivering);
  } catch (error) {
    await stop();
    failed(error);
    // Another tab of this launch left a feature open: show it, so that its free spins can be played here.
    if (error.problem?.code === 'ROUND_UNFINISHED') await refresh();
  } finally {
    setBusy(false);
    focusNext();
  }
}

async function freeSpin() {
  const round = state.feature;
  if (state.busy || !round || state.pending !== null) return;
  setBusy(true);
  ui.app.dataset.result = '';
  ui.lineWins.replaceChildren();
  const stop = animateSpin();
  try {
    const result = await api.freeSpin(round.roundId);
    await stop();
    absorb(result);
    showRound(result.round, lastRevealedSpin(result.round));
    setBalance(ui.balance, result.balance, !result.round.delivering);
  } catch (error) {
    await stop();
    failed(error);
    // The round may have moved on elsewhere (another tab, the provider's completion): show it as it stands.
    await refresh();
  } finally {
    setBusy(false);
    focusNext();
  }
}

function failed(error) {
  // The reels stop where the last shown spin left them: the failed play showed nothing.
  if (state.pending === null) drawWindow(state.shownWindow);
  ui.verdict.textContent = t('reelsReady');
  if (error.problem && error.problem.balance !== undefined) setBalance(ui.balance, String(error.problem.balance), false);
  toast(problemText(error.problem));
}

/** Focus follows the play: the feature's button while it has spins, else Spin. */
function focusNext() {
  const target = state.feature !== null ? ui.featureBtn : ui.spinBtn;
  if (!target.disabled && !target.hidden) target.focus({ preventScroll: true });
}

/** Reads the launch again (no call to the casino) and shows it: after a refused free spin, and while a round is delivered. */
async function refresh() {
  let session;
  try {
    session = await api.state();
  } catch {
    return undefined;
  }
  Object.assign(state.session, {
    balance: session.balance,
    rounds: session.rounds,
    fairness: session.fairness,
    freeRounds: session.freeRounds,
    jackpot: session.jackpot ?? state.session.jackpot,
    unfinished: session.unfinished,
  });
  state.feature = session.unfinished && session.unfinished.featureLeft > 0 ? session.unfinished : null;
  setBalance(ui.balance, session.balance, false);
  renderAll();
  return session;
}

/** Shows a round the casino has not answered yet, and asks after it until it lands or is refused. */
function showPending(round) {
  state.pending = round.roundId;
  // Nothing of its outcome is known to the page: empty reels, not the last frame of the spin's animation.
  drawWindow(STRIPS.map(() => ['-', '-', '-']));
  ui.window.classList.add('waiting');
  ui.app.dataset.result = 'pending';
  ui.verdict.textContent = t('roundPending');
  clearTimeout(state.pollTimer);
  state.pollTimer = setTimeout(followPending, ROUND_POLL_MS);
}

async function followPending() {
  let session;
  try {
    session = await api.state();
  } catch {
    // The game server is unreachable or busy: the round is kept there, so ask again.
    state.pollTimer = setTimeout(followPending, ROUND_POLL_MS);
    return;
  }
  const round = session.rounds.find((r) => r.roundId === state.pending) ?? (session.unfinished?.roundId === state.pending ? session.unfinished : undefined);
  if (round?.delivering) {
    state.pollTimer = setTimeout(followPending, ROUND_POLL_MS);
    return;
  }
  state.pending = null;
  Object.assign(state.session, {
    balance: session.balance,
    rounds: session.rounds,
    fairness: session.fairness,
    freeRounds: session.freeRounds,
    jackpot: session.jackpot ?? state.session.jackpot,
    unfinished: session.unfinished,
  });
  if (round) {
    showRound(round, lastRevealedSpin(round));
  } else {
    // Gone from the rounds: the casino refused it, and it never happened.
    state.feature = null;
    ui.app.dataset.result = 'refused';
    ui.verdict.textContent = t('roundRefused');
  }
  setBalance(ui.balance, session.balance, true);
  renderAll();
  focusNext();
}

function setBusy(busy) {
  state.busy = busy;
  renderControls();
  if (!busy) {
    renderJackpot();
    showFairness(ui, state.session.fairness, state.numbers.count);
    renderRounds();
  }
}

// ---------------------------------------------------------------- wiring

function stepBet(delta) {
  const next = state.betIndex + delta;
  if (!state.session || state.busy || state.feature || next < 0 || next >= state.session.ladder.length) return;
  state.betIndex = next;
  renderControls();
}

function wire() {
  ui.spinBtn.addEventListener('click', () => spin(false));
  ui.freeBtn.addEventListener('click', () => spin(true));
  ui.featureBtn.addEventListener('click', () => freeSpin());
  ui.betDown.addEventListener('click', () => stepBet(-1));
  ui.betUp.addEventListener('click', () => stepBet(1));
  wireClientSeed(
    ui.clientSeed,
    CLIENT_SEED_KEY,
    () => state.clientSeed,
    (seed) => {
      state.clientSeed = seed;
    },
  );
  document.addEventListener('keydown', (event) => {
    if (isTextField(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === ' ') {
      // Space spins wherever focus is (the feature's next free spin while it has spins): it neither scrolls nor presses the focused control.
      event.preventDefault();
      if (event.repeat) return;
      if (state.feature) freeSpin();
      else spin(false);
    } else if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
      event.preventDefault();
      stepBet(event.key === 'ArrowLeft' ? -1 : 1);
    } else if (event.key === 'f' || event.key === 'F') {
      spin(true);
    }
  });
  keepSpaceForPlay();
}

function renderSession() {
  const session = state.session;
  applyLanguage(session.language);
  state.numbers = { count: numberFormat({ maximumFractionDigits: 0 }), rtp: numberFormat({ maximumFractionDigits: 2 }) };
  setMoney(session.currency, session.decimals);
  document.title = session.game.title;
  ui.title.textContent = session.game.title;
  ui.modeBadge.hidden = session.mode !== 'fun';
  wireCasinoButtons(session, ui.lobby, ui.deposit);
  state.betIndex = Math.max(0, session.ladder.indexOf(session.defaultBet));
  ui.chips.replaceChildren(
    ...ladderChips(session.ladder, (index) => {
      state.betIndex = index;
      renderControls();
    }),
  );
  ui.rtpLine.textContent = t('reelsRtp', { rtp: state.numbers.rtp.format(Number(session.game.rtpBp) / 100) });
  setBalance(ui.balance, session.balance, false);
  // A reload while a feature is unfinished resumes it; one while a round is being delivered follows it.
  const unfinished = session.unfinished;
  const delivering = session.rounds.find((round) => round.delivering) ?? (unfinished?.delivering ? unfinished : undefined);
  if (unfinished && unfinished.featureLeft > 0) {
    state.feature = unfinished;
    const last = lastRevealedSpin(unfinished);
    showSpin(last);
    ui.verdict.textContent = t('featureResume', { left: state.numbers.count.format(unfinished.featureLeft) });
  } else if (delivering) {
    showPending(delivering);
  } else {
    const last = session.rounds.find((round) => round.base);
    if (last) state.shownWindow = lastRevealedSpin(last).window;
    drawWindow(state.shownWindow);
  }
  renderAll();
}

async function start() {
  page.name = 'reels';
  applyLanguage(navigator.language);
  state.numbers = { count: numberFormat({ maximumFractionDigits: 0 }), rtp: numberFormat({ maximumFractionDigits: 2 }) };
  state.clientSeed = loadClientSeed(CLIENT_SEED_KEY);
  wire();
  const session = await openLaunch(ui.app, ui.overlayText, () => api.open());
  if (!session) return;
  state.session = session;
  renderSession();
  ui.app.dataset.state = 'ready';
  startRefresh(state.session);
  focusNext();
}

start();
