// Dice, the game page. It talks HTTP only to the provider's own JSON API
// (<page>/api/open, <page>/api/play) and, when the casino gave one, calls
// urls.refresh to keep the player's casino session alive. The launch token
// is the URL's fragment: the browser never sends it in a request line or a
// Referer header. Amounts travel as decimal strings and are computed with
// BigInt, never floats.

const ROLL_OUTCOMES = 1000000n;
const RTP_SCALE = 10000n;
const WORD_LIMIT = Math.floor(2 ** 32 / 1e6) * 1e6;
/** The roll animation lasts at least this long, so a fast answer still reads as a roll (ms). */
const ROLL_ANIMATION_MS = 650;
const CLIENT_SEED_KEY = 'wagerlink.dice.clientSeed';

const STRINGS = {
  en: {
    low: 'low', medium: 'medium', high: 'high',
    lobby: 'Lobby', deposit: 'Deposit', balance: 'Balance', fun: 'Play money', ready: 'Pick your chance and roll',
    multiplier: 'Multiplier', under: 'Win below', payout: 'Payout', chance: 'Win chance', bet: 'Bet', roll: 'Roll',
    playFree: 'Play free round', keys: 'Space or Enter: roll · ← →: bet · ↑ ↓: chance · F: free round',
    lastRounds: 'Last rounds', noRounds: 'No rounds yet.', fair: 'Provably fair',
    fairText: 'Before each round you see the SHA-256 hash of the server seed. After it, the seed is revealed and your browser recomputes the roll from HMAC-SHA256(server seed, "client seed:nonce").',
    nextHash: 'Next server seed hash', nonce: 'Nonce', clientSeed: 'Client seed', loading: 'Opening the game…',
    win: 'You win {amount}!', lose: 'Rolled {roll}: needed below {under}', freeTitle: 'Free rounds',
    freeText: '{left} left at {bet} each', pending: 'pending', verified: 'Verified in your browser',
    notVerified: 'Verification failed', cannotVerify: 'This browser cannot verify here (needs a secure page)',
    rtp: 'Return to player {rtp} % · volatility {volatility}', failed: 'The game could not be opened', noToken: 'This page needs a launch link from the casino.',
  },
  de: {
    low: 'niedrig', medium: 'mittel', high: 'hoch',
    lobby: 'Lobby', deposit: 'Einzahlen', balance: 'Guthaben', fun: 'Spielgeld', ready: 'Chance wählen und würfeln',
    multiplier: 'Multiplikator', under: 'Gewinn unter', payout: 'Auszahlung', chance: 'Gewinnchance', bet: 'Einsatz', roll: 'Würfeln',
    playFree: 'Freispiel spielen', keys: 'Leertaste oder Enter: würfeln · ← →: Einsatz · ↑ ↓: Chance · F: Freispiel',
    lastRounds: 'Letzte Runden', noRounds: 'Noch keine Runden.', fair: 'Nachweisbar fair',
    fairText: 'Vor jeder Runde sehen Sie den SHA-256-Hash des Server-Seeds. Danach wird der Seed offengelegt und Ihr Browser berechnet den Wurf aus HMAC-SHA256(Server-Seed, "Client-Seed:Nonce") nach.',
    nextHash: 'Nächster Server-Seed-Hash', nonce: 'Nonce', clientSeed: 'Client-Seed', loading: 'Spiel wird geöffnet…',
    win: 'Gewonnen: {amount}!', lose: 'Gewürfelt {roll}: nötig war unter {under}', freeTitle: 'Freispiele',
    freeText: 'noch {left} zu je {bet}', pending: 'offen', verified: 'Im Browser geprüft',
    notVerified: 'Prüfung fehlgeschlagen', cannotVerify: 'Dieser Browser kann hier nicht prüfen (sichere Seite nötig)',
    rtp: 'Auszahlungsquote {rtp} % · Volatilität {volatility}', failed: 'Das Spiel konnte nicht geöffnet werden', noToken: 'Diese Seite braucht einen Startlink des Casinos.',
  },
  es: {
    low: 'baja', medium: 'media', high: 'alta',
    lobby: 'Lobby', deposit: 'Depositar', balance: 'Saldo', fun: 'Dinero ficticio', ready: 'Elige tu probabilidad y tira',
    multiplier: 'Multiplicador', under: 'Gana bajo', payout: 'Pago', chance: 'Probabilidad', bet: 'Apuesta', roll: 'Tirar',
    playFree: 'Jugar tirada gratis', keys: 'Espacio o Intro: tirar · ← →: apuesta · ↑ ↓: probabilidad · F: gratis',
    lastRounds: 'Últimas rondas', noRounds: 'Aún no hay rondas.', fair: 'Demostrablemente justo',
    fairText: 'Antes de cada ronda ves el hash SHA-256 de la semilla del servidor. Después se revela la semilla y tu navegador recalcula la tirada con HMAC-SHA256(semilla del servidor, "semilla del cliente:nonce").',
    nextHash: 'Hash de la próxima semilla', nonce: 'Nonce', clientSeed: 'Semilla del cliente', loading: 'Abriendo el juego…',
    win: '¡Ganas {amount}!', lose: 'Salió {roll}: necesitabas menos de {under}', freeTitle: 'Tiradas gratis',
    freeText: 'quedan {left} de {bet}', pending: 'pendiente', verified: 'Verificado en tu navegador',
    notVerified: 'La verificación falló', cannotVerify: 'Este navegador no puede verificar aquí (requiere página segura)',
    rtp: 'Retorno al jugador {rtp} % · volatilidad {volatility}', failed: 'No se pudo abrir el juego', noToken: 'Esta página necesita un enlace del casino.',
  },
  fr: {
    low: 'faible', medium: 'moyenne', high: 'élevée',
    lobby: 'Lobby', deposit: 'Dépôt', balance: 'Solde', fun: 'Argent fictif', ready: 'Choisissez votre chance et lancez',
    multiplier: 'Multiplicateur', under: 'Gagne sous', payout: 'Gain', chance: 'Chance de gain', bet: 'Mise', roll: 'Lancer',
    playFree: 'Jouer un tour gratuit', keys: 'Espace ou Entrée : lancer · ← → : mise · ↑ ↓ : chance · F : gratuit',
    lastRounds: 'Derniers tours', noRounds: 'Aucun tour pour l’instant.', fair: 'Équité vérifiable',
    fairText: 'Avant chaque tour, vous voyez le hash SHA-256 de la graine du serveur. Ensuite la graine est révélée et votre navigateur recalcule le lancer avec HMAC-SHA256(graine serveur, "graine client:nonce").',
    nextHash: 'Hash de la prochaine graine', nonce: 'Nonce', clientSeed: 'Graine client', loading: 'Ouverture du jeu…',
    win: 'Vous gagnez {amount} !', lose: 'Tiré {roll} : il fallait moins de {under}', freeTitle: 'Tours gratuits',
    freeText: 'encore {left} à {bet}', pending: 'en attente', verified: 'Vérifié dans votre navigateur',
    notVerified: 'Échec de la vérification', cannotVerify: 'Ce navigateur ne peut pas vérifier ici (page sécurisée requise)',
    rtp: 'Taux de retour {rtp} % · volatilité {volatility}', failed: 'Le jeu n’a pas pu être ouvert', noToken: 'Cette page nécessite un lien du casino.',
  },
};

const $ = (id) => document.getElementById(id);
const ui = {
  app: $('app'), title: $('title'), modeBadge: $('mode-badge'), balance: $('balance'), lobby: $('lobby'), deposit: $('deposit'),
  die: $('die'), roll: $('roll'), verdict: $('verdict'), winZone: $('win-zone'), marker: $('marker'),
  multiplier: $('multiplier'), under: $('under'), payout: $('payout'), chance: $('chance'), chanceOut: $('chance-out'),
  bet: $('bet'), betDown: $('bet-down'), betUp: $('bet-up'), chips: $('chips'), free: $('free'), freeTitle: $('free-title'),
  freeText: $('free-text'), freeBtn: $('free-btn'), rollBtn: $('roll-btn'), rounds: $('rounds'), roundsEmpty: $('rounds-empty'),
  nextHash: $('next-hash'), nonce: $('nonce'), clientSeed: $('client-seed'), rtpLine: $('rtp-line'), overlayText: $('overlay-text'), toast: $('toast'),
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
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
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

function rollText(roll) {
  return `${Math.floor(roll / 10000)}.${String(roll % 10000).padStart(4, '0')}`;
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

async function call(path, body) {
  const response = await fetch(`${state.api}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: state.token, ...body }),
  });
  const text = await response.text();
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    data = { detail: text || `HTTP ${response.status}` };
  }
  if (!response.ok) {
    const error = new Error(data.detail || `HTTP ${response.status}`);
    error.problem = data;
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
  ui.chanceOut.textContent = `${state.chancePct}%`;
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
  const multiplier = (Number(multiplierE4) / 10000).toLocaleString(session.language, { minimumFractionDigits: 2, maximumFractionDigits: 4 });
  ui.multiplier.textContent = `${multiplier}×`;
  ui.under.textContent = rollText(q.threshold);
  ui.payout.textContent = money(fromMinor(q.win, session.decimals));
  ui.winZone.style.width = `${(q.threshold / 1e6) * 100}%`;
  ui.rollBtn.disabled = state.busy;
}

function renderFree() {
  const free = state.session.freeRounds;
  ui.free.hidden = !free;
  if (free) {
    ui.freeTitle.textContent = t('freeTitle');
    ui.freeText.textContent = t('freeText', { left: free.left, bet: money(free.bet) });
  }
  ui.freeBtn.disabled = state.busy;
}

function renderFairness() {
  ui.nextHash.textContent = state.session.fairness.serverSeedHash;
  ui.nextHash.title = state.session.fairness.serverSeedHash;
  ui.nonce.textContent = String(state.session.fairness.nonce);
}

function roundItem(round) {
  const item = document.createElement('li');
  const settled = round.status === 'settled';
  const won = settled && toMinor(round.win, state.session.decimals) > 0n;
  item.className = settled ? (won ? 'win' : 'lose') : 'pending';
  const left = document.createElement('div');
  const roll = document.createElement('span');
  roll.className = 'r-roll';
  roll.textContent = settled ? rollText(round.roll).slice(0, -2) : '··.··';
  left.append(roll);
  if (round.free) {
    const free = document.createElement('span');
    free.className = 'r-free';
    free.textContent = 'FREE';
    left.append(free);
  }
  const meta = document.createElement('span');
  meta.className = 'r-meta';
  meta.textContent = `${round.chancePct}% · ${money(round.bet)}`;
  left.append(meta);
  const win = document.createElement('span');
  win.className = 'r-win';
  win.textContent = !settled ? t('pending') : won ? `+${money(round.win)}` : round.free ? money('0') : `−${money(round.bet)}`;
  const check = document.createElement('span');
  check.className = 'r-check';
  check.textContent = settled ? '…' : '';
  check.title = `nonce ${round.nonce}\nserver seed hash ${round.serverSeedHash}\nclient seed ${round.clientSeed}${settled ? `\nserver seed ${round.serverSeed}` : ''}`;
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
    rtp: (Number(session.game.rtpBp) / 100).toLocaleString(session.language, { maximumFractionDigits: 2 }),
    volatility: t(session.game.volatility),
  });
  ui.clientSeed.value = state.clientSeed;
  setBalance(session.balance, false);
  const last = session.rounds.find((round) => round.status === 'settled');
  if (last) showRoll(last, false);
  else ui.marker.hidden = true;
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
  if (state.busy || !state.session) return;
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
    showRoll(result.round, true);
    setBalance(result.balance, true);
    renderFairness();
    renderRounds();
  } catch (error) {
    clearInterval(spin);
    ui.die.classList.remove('rolling');
    ui.roll.textContent = '--.----';
    ui.verdict.textContent = t('ready');
    if (error.problem && error.problem.balance !== undefined) setBalance(String(error.problem.balance), false);
    toast(error.message);
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
    if (target === ui.clientSeed || event.ctrlKey || event.metaKey || event.altKey) return;
    // A focused button or slider handles its own keys; the page handles the rest.
    const onButton = target instanceof HTMLButtonElement;
    const onSlider = target === ui.chance;
    if ((event.key === ' ' || event.key === 'Enter') && !onButton) {
      event.preventDefault();
      play(false);
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
    ui.overlayText.textContent = `${t('failed')}: ${error.message}`;
    return;
  }
  renderSession();
  ui.app.dataset.state = 'ready';
  startRefresh();
  ui.rollBtn.focus({ preventScroll: true });
}

start();
