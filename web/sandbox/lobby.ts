/**
 * The lobby: a casino's player-facing page. Pick or create a player, see
 * the balance, browse the provider's games with their bet ladders in the
 * player's currency, and play for real money or for fun; the game opens in
 * a frame sized to it, and its lobby button leads back here (the one way
 * back). Everything goes through the operator's lobby API (/lobby/api/*).
 *
 * The page speaks the browser's language as the game pages do (en, de, es,
 * fr; English for any other): its texts and its sentence for each problem
 * code come from lobby-strings.ts, the problem's English detail goes to the
 * console only, and amounts are written by money-text.ts as the games
 * write theirs.
 */
import { $, ApiProblem, api, el, fields, type Player } from './api.js';
import { LOBBY_STRINGS, type LobbyKey } from './lobby-strings.js';
import { moneyFormat } from './money-text.js';

interface Game {
  slug: string;
  title: string;
  kind: string;
  ladder: number[];
}

/** The picker lists at most this many players (a select of more is no way to pick one); any other comes by ?player=. */
const PICKER_PLAYERS_MAX = 500;

/**
 * The currencies the new-player form may offer; it offers those some game
 * has bets in (asked of the games API when the page opens), as a player in
 * any other could play nothing.
 */
const CURRENCIES_ASKED = ['EUR', 'USD', 'JPY', 'BTC', 'GBP'];

/** What the lobby says a game is, by its kind; a kind not here shows as its name. */
const KIND_TEXT: Readonly<Record<string, LobbyKey>> = { dice: 'kindDice', reels: 'kindReels' };

/**
 * The page's sentence for each problem code of the registry
 * (src/protocol/errors.ts) the lobby's API answers; a code not here gets
 * pGeneric. INVALID_REQUEST is told apart by the field its detail names.
 */
const PROBLEM_TEXT: Readonly<Record<string, LobbyKey>> = {
  PLAYER_EXISTS: 'pExists',
  PLAYER_NOT_FOUND: 'pNotFound',
  WALLET_NOT_FOUND: 'pNotFound',
  PLAYER_BLOCKED: 'pBlocked',
  UNSUPPORTED_CURRENCY: 'pCurrency',
  GAME_NOT_FOUND: 'pGame',
  SERVICE_UNAVAILABLE: 'pBusy',
  REQUEST_TIMEOUT: 'pBusy',
  INTERNAL_ERROR: 'pBusy',
  INVALID_ANSWER: 'pBusy',
  RATE_LIMITED: 'pRate',
  NETWORK: 'pNetwork',
  INVALID_REQUEST: 'pInvalid',
};
const INVALID_FIELD_TEXT: Readonly<Record<string, LobbyKey>> = { country: 'pCountry', playerId: 'pPlayerId' };

/** How often the balance is read again while a game is open (ms), besides after each of the game's messages: a round settled elsewhere shows too. */
const BALANCE_REFRESH_MS = 5_000;
/** The game frame's height bounds (CSS px) whatever the game asks: tall enough for its overlay, never a page without end. */
const FRAME_HEIGHT_PX_MIN = 320;
const FRAME_HEIGHT_PX_MAX = 4000;
/** Where this tab keeps the player last chosen: a demo game's lobby button leads back with no ?player=. */
const PLAYER_KEY = 'wagerlink-lobby-player';

const ui = {
  picker: $<HTMLSelectElement>('player-picker'),
  balance: $('balance'),
  status: $('player-status'),
  problem: $('problem'),
  notice: $('notice'),
  games: $('games'),
  noGames: $('no-games'),
  create: $<HTMLFormElement>('create-player'),
  currencies: $<HTMLFormElement>('create-player').elements.namedItem('currency') as HTMLSelectElement,
  stage: $('stage'),
  frame: $<HTMLIFrameElement>('game-frame'),
  gameTitle: $('game-title'),
};

// ------------------------------------------------------------------ text

const language = navigator.language || 'en';
const strings = LOBBY_STRINGS[language.toLowerCase().split('-')[0] ?? 'en'] ?? LOBBY_STRINGS.en!;

function t(key: LobbyKey, vars: Record<string, string> = {}): string {
  return strings[key].replace(/\{(\w+)\}/g, (_, name: string) => vars[name] ?? '');
}

function applyLanguage(): void {
  document.documentElement.lang = language;
  document.title = t('pageTitle');
  for (const node of document.querySelectorAll<HTMLElement>('[data-i18n]')) node.textContent = t(node.dataset.i18n as LobbyKey);
}

/** The page's sentence for what went wrong; the server's detail, for developers, goes to the console. */
function problemText(error: unknown): string {
  const problem = error instanceof ApiProblem ? error : new ApiProblem(0, 'NETWORK', String((error as Error)?.message ?? error));
  console.info(`lobby: ${problem.code}: ${problem.message}`);
  const field = problem.code === 'INVALID_REQUEST' ? /^(\w+):/.exec(problem.message)?.[1] : undefined;
  return t((field === undefined ? undefined : INVALID_FIELD_TEXT[field]) ?? PROBLEM_TEXT[problem.code] ?? 'pGeneric');
}

function showProblem(error: unknown): void {
  ui.problem.textContent = problemText(error);
  ui.problem.hidden = false;
}

// --------------------------------------------------------------- players

let player: Player | undefined;
let money: (amount: number) => string = String;
/** Counts the player shown: an answer for a player chosen before the latest is dropped. */
let shown = 0;

/** Every player's id in id order, page after page of the lobby's API, up to PICKER_PLAYERS_MAX. */
async function listedPlayerIds(): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const after: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const page: { items: Player[]; nextCursor: string | null } = await api('GET', `/lobby/api/players?limit=100${after}`);
    ids.push(...page.items.map((p) => p.playerId));
    cursor = page.nextCursor;
  } while (cursor !== null && ids.length < PICKER_PLAYERS_MAX);
  return ids.slice(0, PICKER_PLAYERS_MAX);
}

function rememberedPlayer(): string | undefined {
  try {
    return sessionStorage.getItem(PLAYER_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

async function fillPicker(selected?: string): Promise<void> {
  const ids = await listedPlayerIds();
  ui.picker.replaceChildren(...ids.map((id) => el('option', { value: id }, id)));
  const want = selected ?? new URLSearchParams(location.search).get('player') ?? rememberedPlayer() ?? ids[0];
  if (want !== undefined) {
    if (!ids.includes(want)) ui.picker.append(el('option', { value: want }, want));
    ui.picker.value = want;
  }
}

/**
 * Shows the chosen player: balance, state and the games in their currency.
 * The previous player's games go first, so that a player whose currency no
 * game offers is never shown another's.
 */
async function showPlayer(): Promise<void> {
  const turn = ++shown;
  ui.problem.hidden = true;
  closeGame();
  player = undefined;
  ui.balance.textContent = '—';
  ui.status.textContent = '';
  ui.games.replaceChildren();
  ui.noGames.hidden = true;
  const id = ui.picker.value;
  if (!id) return;
  try {
    sessionStorage.setItem(PLAYER_KEY, id);
  } catch {
    // Storage may be blocked: the lobby button of a demo then leads to the first player.
  }
  let fresh: Player;
  try {
    fresh = await api<Player>('GET', `/lobby/api/players/${encodeURIComponent(id)}`);
  } catch (error) {
    if (turn === shown) showProblem(error);
    return;
  }
  if (turn !== shown) return;
  player = fresh;
  money = moneyFormat(language, fresh.currency);
  ui.balance.textContent = money(fresh.balance);
  ui.status.textContent = fresh.blocked ? t('blocked') : '';
  let games: Game[];
  try {
    games = (await api<{ items: Game[] }>('GET', `/lobby/api/games?currency=${encodeURIComponent(fresh.currency)}`)).items;
  } catch (error) {
    if (turn !== shown) return;
    if (error instanceof ApiProblem && error.code === 'UNSUPPORTED_CURRENCY') games = [];
    else return showProblem(error);
  }
  if (turn !== shown) return;
  showGames(fresh, games);
}

function showGames(forPlayer: Player, games: readonly Game[]): void {
  const { currency } = forPlayer;
  const offered = games.filter((game) => game.ladder.length > 0);
  ui.noGames.textContent = t('noGames', { currency });
  ui.noGames.hidden = offered.length > 0;
  ui.games.replaceChildren(
    ...offered.map((game) => {
      const play = el('button', { type: 'button', class: 'primary' }, t('play'));
      const demo = el('button', { type: 'button' }, t('demo'));
      play.addEventListener('click', () => void launch(game, 'real', forPlayer));
      demo.addEventListener('click', () => void launch(game, 'fun', forPlayer));
      const kind = KIND_TEXT[game.kind];
      return el(
        'li',
        { class: 'card game', 'data-game': game.slug },
        el('h3', {}, game.title),
        el('p', { class: 'kind' }, kind === undefined ? game.kind : t(kind)),
        el('p', { class: 'muted' }, t('betsIn', { currency })),
        el('ul', { class: 'ladder', 'aria-label': t('betsIn', { currency }) }, ...game.ladder.map((bet) => el('li', {}, money(bet)))),
        el('div', { class: 'actions' }, play, demo),
      );
    }),
  );
}

/** Reads the shown player's balance again (one read at a time; a call meanwhile asks for one more after it). */
let reading: Promise<void> | undefined;
let readAgain = false;
function refreshBalance(): void {
  if (reading) {
    readAgain = true;
    return;
  }
  const forPlayer = player;
  if (!forPlayer) return;
  reading = api<Player>('GET', `/lobby/api/players/${encodeURIComponent(forPlayer.playerId)}`)
    .then((fresh) => {
      if (player?.playerId === fresh.playerId) ui.balance.textContent = money(fresh.balance);
    })
    .catch(() => undefined) // the next message or tick tries again
    .finally(() => {
      reading = undefined;
      if (readAgain) {
        readAgain = false;
        refreshBalance();
      }
    });
}

// ------------------------------------------------------------------ games

/** The origin of the game in the frame: only its messages are listened to. */
let gameOrigin: string | undefined;

async function launch(game: Game, mode: 'real' | 'fun', forPlayer: Player): Promise<void> {
  ui.problem.hidden = true;
  try {
    // Demo plays for play money in the shown player's currency, the one the game's ladder is shown in; no player is named.
    const body = { game: game.slug, mode, language, ...(mode === 'real' ? { playerId: forPlayer.playerId } : { currency: forPlayer.currency }) };
    const { url } = await api<{ url: string }>('POST', '/lobby/api/launch', body);
    const title = mode === 'fun' ? t('demoTitle', { title: game.title }) : game.title;
    ui.gameTitle.textContent = title;
    ui.frame.title = title;
    ui.frame.style.height = '';
    gameOrigin = new URL(url).origin;
    ui.frame.src = url;
    ui.stage.hidden = false;
    ui.stage.scrollIntoView({ block: 'start' });
    ui.frame.focus();
  } catch (error) {
    showProblem(error);
  }
}

function closeGame(): void {
  gameOrigin = undefined;
  if (ui.stage.hidden) return;
  ui.frame.src = 'about:blank';
  ui.stage.hidden = true;
}

/**
 * The game page's messages (web/page.js tellCasino): its height, which the
 * frame takes so that the game never scrolls inside it, and a changed
 * balance, on which the lobby reads the player's balance from its wallet
 * (the message carries none to trust).
 */
window.addEventListener('message', (event: MessageEvent) => {
  if (gameOrigin === undefined || event.origin !== gameOrigin || event.source !== ui.frame.contentWindow) return;
  const data = event.data as { source?: unknown; type?: unknown; height?: unknown };
  if (data?.source !== 'wagerlink-game') return;
  if (data.type === 'height' && typeof data.height === 'number' && Number.isFinite(data.height)) {
    ui.frame.style.height = `${Math.min(FRAME_HEIGHT_PX_MAX, Math.max(FRAME_HEIGHT_PX_MIN, Math.ceil(data.height)))}px`;
  } else if (data.type === 'balance') {
    refreshBalance();
  }
});

// ------------------------------------------------------------ new player

/** Offers in the form the currencies some game has bets in. */
async function offerCurrencies(): Promise<void> {
  const answers = await Promise.all(
    CURRENCIES_ASKED.map((currency) =>
      api<{ items: Game[] }>('GET', `/lobby/api/games?currency=${currency}`).then(
        (games) => games.items.some((game) => game.ladder.length > 0),
        (error: unknown) => {
          if (error instanceof ApiProblem && error.code === 'UNSUPPORTED_CURRENCY') return false;
          throw error;
        },
      ),
    ),
  );
  const offered = CURRENCIES_ASKED.filter((_, i) => answers[i]);
  ui.currencies.replaceChildren(...offered.map((currency) => el('option', {}, currency)));
}

ui.create.addEventListener('submit', (event) => {
  event.preventDefault();
  const input = fields(ui.create);
  // No balance: a player starts at 0, and money comes in as the back office's deposits (docs/sandbox.md).
  const body = JSON.stringify({ playerId: input.playerId, currency: input.currency, ...(input.country ? { country: input.country.toUpperCase() } : {}) });
  api<Player>('POST', '/lobby/api/players', body)
    .then(async (created) => {
      ui.create.reset();
      await fillPicker(created.playerId);
      ui.picker.dispatchEvent(new Event('change'));
    })
    .catch(showProblem);
});

// ------------------------------------------------------------------ wiring

ui.picker.addEventListener('change', () => {
  const url = new URL(location.href);
  url.searchParams.set('player', ui.picker.value);
  url.searchParams.delete('deposit');
  history.replaceState(null, '', url);
  void showPlayer();
});

setInterval(() => {
  if (!ui.stage.hidden) refreshBalance();
}, BALANCE_REFRESH_MS);

applyLanguage();
if (new URLSearchParams(location.search).has('deposit')) {
  ui.notice.textContent = t('depositNotice');
  ui.notice.hidden = false;
}
// Asked when the form is first opened, not on every visit: a currency no game has is answered 422, which the browser logs.
let offering: Promise<void> | undefined;
ui.create.closest('details')!.addEventListener('toggle', () => {
  offering ??= offerCurrencies().catch((error: unknown) => {
    offering = undefined;
    showProblem(error);
  });
});
fillPicker().then(showPlayer).catch(showProblem);
