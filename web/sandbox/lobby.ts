/**
 * The lobby: a casino's player-facing page. Pick or create a player, see
 * the balance, browse the provider's games with their bet ladders in the
 * player's currency, and play for real money or for fun; the game opens in
 * an iframe, and its lobby and deposit buttons lead back here. Everything
 * goes through the operator's lobby API (/lobby/api/*).
 */
import { $, api, el, fields, money, report, type Player } from './api.js';

interface Game {
  slug: string;
  title: string;
  kind: string;
  ladder: number[];
}

/** The picker lists at most this many players (a select of more is no way to pick one); any other comes by ?player=. */
const PICKER_PLAYERS_MAX = 500;

/** What the lobby says a game is, by its kind; a kind not here shows as its name. */
const KIND_TEXT: Readonly<Record<string, string>> = {
  dice: 'Dice: pick your chance',
  reels: 'Reels: 5 lines, free spins, jackpot',
};

const ui = {
  picker: $<HTMLSelectElement>('player-picker'),
  balance: $('balance'),
  status: $('player-status'),
  problem: $('problem'),
  notice: $('notice'),
  games: $('games'),
  create: $<HTMLFormElement>('create-player'),
  stage: $('stage'),
  frame: $<HTMLIFrameElement>('game-frame'),
  gameTitle: $('game-title'),
  close: $<HTMLButtonElement>('close-game'),
};

let player: Player | undefined;

/** How often the balance is read again while a game is open (ms): the game books in the wallet, and the lobby shows it. */
const BALANCE_REFRESH_MS = 5_000;

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

async function fillPicker(selected?: string): Promise<void> {
  const ids = await listedPlayerIds();
  ui.picker.replaceChildren(...ids.map((id) => el('option', { value: id }, id)));
  const want = selected ?? new URLSearchParams(location.search).get('player') ?? ids[0];
  if (want !== undefined) {
    if (!ids.includes(want)) ui.picker.append(el('option', { value: want }, want));
    ui.picker.value = want;
  }
}

async function showPlayer(): Promise<void> {
  ui.problem.hidden = true;
  const id = ui.picker.value;
  if (!id) return;
  try {
    player = await api<Player>('GET', `/lobby/api/players/${encodeURIComponent(id)}`);
    ui.balance.textContent = money(player.balance, player.currency);
    ui.status.textContent = player.blocked ? 'blocked: bets are refused' : '';
    await showGames(player.currency);
  } catch (error) {
    player = undefined;
    ui.balance.textContent = '—';
    report(ui.problem, error);
  }
}

async function showGames(currency: string): Promise<void> {
  const games = await api<{ items: Game[] }>('GET', `/lobby/api/games?currency=${encodeURIComponent(currency)}`);
  ui.games.replaceChildren(
    ...games.items.map((game) => {
      const play = el('button', { type: 'button', class: 'primary' }, 'Play');
      const demo = el('button', { type: 'button' }, 'Demo');
      const noLadder = game.ladder.length === 0;
      if (noLadder) play.setAttribute('disabled', '');
      play.addEventListener('click', () => void launch(game, 'real'));
      demo.addEventListener('click', () => void launch(game, 'fun'));
      const ladder = noLadder
        ? el('p', { class: 'muted' }, `Not offered in ${currency}`)
        : el('ul', { class: 'ladder', 'aria-label': `Bets in ${currency}` }, ...game.ladder.map((bet) => el('li', {}, String(bet))));
      return el(
        'li',
        { class: 'card game', 'data-game': game.slug },
        el('h3', {}, game.title),
        el('p', { class: 'kind' }, KIND_TEXT[game.kind] ?? game.kind),
        el('p', { class: 'muted' }, `Bets (${currency})`),
        ladder,
        el('div', { class: 'actions' }, play, demo),
      );
    }),
  );
}

async function launch(game: Game, mode: 'real' | 'fun'): Promise<void> {
  ui.problem.hidden = true;
  try {
    const body = mode === 'real' ? { game: game.slug, mode, playerId: player?.playerId, language: navigator.language } : { game: game.slug, mode, language: navigator.language };
    const { url } = await api<{ url: string }>('POST', '/lobby/api/launch', body);
    ui.gameTitle.textContent = `${game.title}${mode === 'fun' ? ' (demo: play money)' : ''}`;
    ui.frame.src = url;
    ui.stage.hidden = false;
    ui.stage.scrollIntoView({ block: 'start' });
    ui.frame.focus();
  } catch (error) {
    report(ui.problem, error);
  }
}

ui.picker.addEventListener('change', () => {
  const url = new URL(location.href);
  url.searchParams.set('player', ui.picker.value);
  url.searchParams.delete('deposit');
  history.replaceState(null, '', url);
  void showPlayer();
});

ui.close.addEventListener('click', () => {
  ui.frame.src = 'about:blank';
  ui.stage.hidden = true;
  void showPlayer();
});

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
    .catch((error: unknown) => report(ui.problem, error));
});

setInterval(() => {
  if (ui.stage.hidden || !player) return;
  api<Player>('GET', `/lobby/api/players/${encodeURIComponent(player.playerId)}`)
    .then((fresh) => {
      ui.balance.textContent = money(fresh.balance, fresh.currency);
    })
    .catch(() => undefined); // the next tick tries again; a lasting problem shows when the game closes
}, BALANCE_REFRESH_MS);

if (new URLSearchParams(location.search).has('deposit')) {
  ui.notice.textContent = 'Deposits are made by the casino’s staff in the back office.';
  ui.notice.hidden = false;
}
fillPicker()
  .then(showPlayer)
  .catch((error: unknown) => report(ui.problem, error));
