// Dice, the game page. It talks HTTP only to the provider's own JSON API
// (<page>/api/open, <page>/api/play, <page>/api/state) and, when the casino gave one, calls
// urls.refresh to keep the player's casino session alive. The launch token
// is the URL's fragment: the browser never sends it in a request line or a
// Referer header. Amounts travel as decimal strings and are computed with
// BigInt, never floats.

import {
  applyLanguage as applyPageLanguage,
  call,
  canVerify,
  fairnessMark,
  ladderChips,
  openLaunch,
  fromMinor,
  isPressable,
  isTextField,
  keepSpaceForPlay,
  loadClientSeed,
  money,
  numberFormat,
  page,
  problemText,
  seedMatchesHash,
  setBalance as showBalance,
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

const ROLL_OUTCOMES = 1000000n;
const RTP_SCALE = 10000n;
/** The roll animation lasts at least this long, so a fast answer still reads as a roll (ms). */
const ROLL_ANIMATION_MS = 650;
const CLIENT_SEED_KEY = 'wagerlink.dice.clientSeed';

/** How often the page asks after a round still being delivered (ms): the provider resends at least once a second meanwhile. */
const ROUND_POLL_MS = 1000;

const $ = (id) => document.getElementById(id);
const ui = {
  app: $('app'),
  title: $('title'),
  modeBadge: $('mode-badge'),
  balance: $('balance'),
  lobby: $('lobby'),
  deposit: $('deposit'),
  die: $('die'),
  roll: $('roll'),
  verdict: $('verdict'),
  winZone: $('win-zone'),
  marker: $('marker'),
  multiplier: $('multiplier'),
  under: $('under'),
  payout: $('payout'),
  chance: $('chance'),
  chanceOut: $('chance-out'),
  bet: $('bet'),
  betDown: $('bet-down'),
  betUp: $('bet-up'),
  chips: $('chips'),
  free: $('free'),
  freeTitle: $('free-title'),
  freeText: $('free-text'),
  freeBtn: $('free-btn'),
  rollBtn: $('roll-btn'),
  rounds: $('rounds'),
  roundsEmpty: $('rounds-empty'),
  nextHash: $('next-hash'),
  nonce: $('nonce'),
  clientSeed: $('client-seed'),
  rtpLine: $('rtp-line'),
  overlayText: $('overlay-text'),
  toast: $('toast'),
  rollReason: $('roll-reason'),
  trackScale: $('track-scale'),
};

const state = {
  session: null,
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

function applyLanguage(tag) {
  applyPageLanguage(tag);
  state.numbers = makeNumberFormats();
  ui.trackScale.replaceChildren(
    ...[0, 25, 50, 75, 100].map((value) => {
      const mark = document.createElement('span');
      mark.textContent = state.numbers.count.format(value);
      return mark;
    }),
  );
}

/** Every number the page shows goes through one of these, in the page's language. */
function makeNumberFormats() {
  return {
    roll: numberFormat({ minimumFractionDigits: 4, maximumFractionDigits: 4 }),
    rollShort: numberFormat({ minimumFractionDigits: 2, maximumFractionDigits: 2, roundingMode: 'trunc' }),
    percent: numberFormat({ style: 'percent', maximumFractionDigits: 0 }),
    count: numberFormat({ maximumFractionDigits: 0 }),
    multiplier: numberFormat({ minimumFractionDigits: 2, maximumFractionDigits: 4 }),
    rtp: numberFormat({ maximumFractionDigits: 2 }),
  };
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

// ------------------------------------------------------------ fairness

/** Recomputes a revealed round (src/game/fairness.ts): true, false, or null when WebCrypto is unavailable. */
async function verifyRound(round) {
  if (!canVerify() || round.serverSeed === undefined) return null;
  if (!(await seedMatchesHash(round.serverSeed, round.serverSeedHash))) return false;
  return (await uniformFromDigests(round.serverSeed, `${round.clientSeed}:${round.nonce}`, Number(ROLL_OUTCOMES))) === round.roll;
}

// ---------------------------------------------------------------- render

function currentBetMinor() {
  return toMinor(state.session.ladder[state.betIndex], state.session.decimals);
}

function setBalance(text, bump) {
  showBalance(ui.balance, text, bump);
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
  item.append(left, win, fairnessMark(round, settled, state.numbers.count.format(round.nonce), verifyRound));
  return item;
}

function renderRounds() {
  ui.rounds.replaceChildren(...state.session.rounds.map(roundItem));
  ui.roundsEmpty.hidden = state.session.rounds.length > 0;
}

function renderSession() {
  const session = state.session;
  applyLanguage(session.language);
  setMoney(session.currency, session.decimals);
  document.title = session.game.title;
  ui.title.textContent = session.game.title;
  ui.modeBadge.hidden = session.mode !== 'fun';
  wireCasinoButtons(session, ui.lobby, ui.deposit);
  ui.chance.min = String(session.game.chancePctMin);
  ui.chance.max = String(session.game.chancePctMax);
  state.chancePct = Math.min(session.game.chancePctMax, Math.max(session.game.chancePctMin, state.chancePct));
  ui.chance.value = String(state.chancePct);
  state.betIndex = Math.max(0, session.ladder.indexOf(session.defaultBet));
  ui.chips.replaceChildren(
    ...ladderChips(session.ladder, (index) => {
      state.betIndex = index;
      renderQuote();
    }),
  );
  ui.rtpLine.textContent = t('rtp', {
    rtp: state.numbers.rtp.format(fromMinor(BigInt(session.game.rtpBp), 2)),
    volatility: t(session.game.volatility),
  });
  setBalance(session.balance, false);
  const last = session.rounds.find((round) => round.status === 'settled');
  if (last) showRoll(last, false);
  else ui.marker.hidden = true;
  // A reload while a round is being delivered follows it as the play that left it would have.
  const pending = session.rounds.find((round) => round.status === 'pending');
  if (pending) showPending(pending);
  renderQuote();
  renderFree();
  showFairness(ui, state.session.fairness, state.numbers.count);
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
  showFairness(ui, state.session.fairness, state.numbers.count);
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
    showFairness(ui, state.session.fairness, state.numbers.count);
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

function wire() {
  ui.rollBtn.addEventListener('click', () => play(false));
  ui.freeBtn.addEventListener('click', () => play(true));
  ui.betDown.addEventListener('click', () => stepBet(-1));
  ui.betUp.addEventListener('click', () => stepBet(1));
  ui.chance.addEventListener('input', () => {
    state.chancePct = Number(ui.chance.value);
    renderQuote();
  });
  wireClientSeed(
    ui.clientSeed,
    CLIENT_SEED_KEY,
    () => state.clientSeed,
    (seed) => {
      state.clientSeed = seed;
    },
  );
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
  keepSpaceForPlay();
}

async function start() {
  page.name = 'dice';
  applyLanguage(navigator.language);
  state.clientSeed = loadClientSeed(CLIENT_SEED_KEY);
  wire();
  const session = await openLaunch(ui.app, ui.overlayText, () => call('open', {}));
  if (!session) return;
  state.session = session;
  renderSession();
  ui.app.dataset.state = 'ready';
  startRefresh(state.session);
  ui.rollBtn.focus({ preventScroll: true });
}

start();
