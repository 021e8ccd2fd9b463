/**
 * The back office: what a casino's staff looks at. Every player, filtered
 * and paged; one player (find, create, deposit, block), its rounds and transactions with filters and
 * paging, one round's full history (the operator's bookings and the requests
 * the provider sent with the answers it got), the ledger check, a tournament
 * payout, the provider's outbox (retry, or resolve by hand with the
 * operator's reference), and charts (the casino's GGR among them). It calls the operator's /admin
 * API with the operator's admin token, and the provider's /admin API through
 * the sandbox's pass-through with the provider's admin token; both tokens
 * come in the URL's fragment, which the browser never sends, and are kept
 * for this tab only, until a server refuses one: then the token form asks
 * again, saying why. The outbox and the codes chart are read again on their
 * own while the page is visible.
 */
import { $, ApiProblem, api, el, fields, money, report, type Player } from './api.js';
import { barChart, lineChart } from './charts.js';
import { OUTBOX_STATUSES } from './outbox-statuses.js';

interface Round {
  roundId: string;
  /** The studio whose call opened it. */
  integration: string;
  game: string;
  finished: boolean;
  createdAt: string;
  finishedAt: string | null;
}
interface Transfer {
  id: string;
  kind: string;
  amount: number;
  jpAmount: number;
  freeBet: boolean;
  roundId: string | null;
  /** The studio whose call booked it; null for an adjustment. */
  integration: string | null;
  game: string | null;
  createdAt: string;
}
interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
interface GgrRow {
  day: string;
  /** The studio whose game it is: the same slug at two studios is two games. */
  integration: string;
  game: string;
  currency: string;
  ggr: number;
}
interface OutboxItem {
  id: string;
  kind: string;
  path: string;
  status: string;
  attempts: number;
  lastAnswer: unknown;
  createdAt: string;
  body?: string;
}

/** The largest page the operator's API gives (PAGE_LIMIT_MAX): a round's history and the charts read one. */
const PAGE_MAX = 500;
const PAGE_SIZE = 20;

const tokens = { admin: '', provider: '' };
/** Where this tab keeps the tokens (sessionStorage): gone with the tab, and cleared when a server refuses one. */
const TOKENS_KEY = 'wagerlink-tokens';
/**
 * How often the outbox and the codes chart are read again while the page is
 * visible (ms): what the provider's dispatch does (attempts climbing, items
 * parked) shows within seconds, and a hidden tab asks nothing.
 */
const LIVE_REFRESH_MS = 5_000;
const ui = {
  tokenForm: $<HTMLFormElement>('token-form'),
  tokenProblem: $('token-problem'),
  app: $('app'),
  problem: $('problem'),
  done: $('done'),
  playersFilter: $<HTMLFormElement>('players-filter'),
  players: $('players'),
  playersMore: $<HTMLButtonElement>('players-more'),
  find: $<HTMLFormElement>('find-player'),
  picker: $<HTMLInputElement>('player-id'),
  known: $<HTMLDataListElement>('known-players'),
  player: $('player'),
  create: $<HTMLFormElement>('create-player'),
  deposit: $<HTMLFormElement>('deposit'),
  block: $<HTMLButtonElement>('block'),
  rounds: $('rounds'),
  roundGame: $<HTMLSelectElement>('round-game'),
  roundsMore: $<HTMLButtonElement>('rounds-more'),
  transfers: $('transfers'),
  transferKind: $<HTMLSelectElement>('transfer-kind'),
  transfersMore: $<HTMLButtonElement>('transfers-more'),
  round: $('round'),
  verify: $<HTMLButtonElement>('verify'),
  verified: $('verified'),
  payout: $<HTMLFormElement>('payout'),
  outboxStatus: $<HTMLSelectElement>('outbox-status'),
  outbox: $('outbox'),
  outage: $<HTMLButtonElement>('outage'),
  outageState: $('outage-state'),
  balanceChart: $('balance-chart'),
  ggrChart: $('ggr-chart'),
  codesChart: $('codes-chart'),
  audit: $('audit'),
  auditReload: $<HTMLButtonElement>('audit-reload'),
};

/** A row of the operator's audit log (GET /admin/audit). */
interface AuditRow {
  id: number;
  at: number;
  actor: string;
  tokenId: string | null;
  method: string;
  route: string;
  target: string | null;
  amount: string | null;
  currency: string | null;
  address: string | null;
  status: number;
  code: string | null;
}
/** Audit rows shown: the newest. */
const AUDIT_ROWS = 50;

let current: Player | undefined;
const listing = { players: [] as Player[], next: null as string | null };
const pages = { rounds: [] as Round[], roundsNext: null as string | null, transfers: [] as Transfer[], transfersNext: null as string | null };

/** The tokens' names as the form and its messages say them. */
const TOKEN_NAMES = { admin: "The operator's admin token", provider: "The provider's admin token" } as const;

/**
 * A server's refusal of the token itself (401), or of what the token may do
 * (403 FORBIDDEN): another token is needed, so the stored one is dropped and
 * the form asks again, saying why. Other 403s (a staff limit, a blocked
 * player) are answers about the request, said where it was made.
 */
function refusesToken(error: unknown): error is ApiProblem {
  return error instanceof ApiProblem && (error.status === 401 || (error.status === 403 && error.code === 'FORBIDDEN'));
}

function askTokens(which: keyof typeof tokens, error: ApiProblem): void {
  sessionStorage.removeItem(TOKENS_KEY);
  stopLive();
  tokens[which] = '';
  for (const name of ['admin', 'provider'] as const) (ui.tokenForm.elements.namedItem(name) as HTMLInputElement).value = tokens[name];
  ui.tokenProblem.textContent = `${TOKEN_NAMES[which]} was refused (${error.code}: ${error.message}). Enter it again.`;
  ui.tokenProblem.hidden = false;
  ui.app.hidden = true;
  ui.tokenForm.hidden = false;
}

/** A call with one of the tokens; its refusal of the token brings the token form back. */
async function withToken<T>(which: keyof typeof tokens, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    // A provider call made with no provider token was never a mistyped one: it fails where it was made.
    if (refusesToken(error) && tokens[which] !== '' && !ui.app.hidden) askTokens(which, error);
    throw error;
  }
}

const admin = <T>(method: 'GET' | 'POST', path: string, body?: unknown) => withToken('admin', () => api<T>(method, `/admin${path}`, body, tokens.admin));
const provider = <T>(method: 'GET' | 'POST', path: string, body?: unknown) =>
  withToken('provider', () => api<T>(method, `/backoffice/provider/admin${path}`, body, tokens.provider));

function say(text: string): void {
  ui.problem.hidden = true;
  ui.done.textContent = text;
  ui.done.hidden = false;
}

function fail(error: unknown): void {
  ui.done.hidden = true;
  report(ui.problem, error);
}

// ------------------------------------------------------- exact decimal sums

/** A JSON number's exact decimal value as integer units at a scale (String(n) is its shortest exact text). */
function decimalOf(n: number): { units: bigint; scale: number } {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(n));
  if (!match) throw new Error(`not a decimal: ${n}`);
  const [, sign, int, frac = '', exp = '0'] = match;
  let units = BigInt(`${sign}${int}${frac}`);
  let scale = frac.length - Number(exp);
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { units, scale };
}

function atScale(value: { units: bigint; scale: number }, scale: number): bigint {
  return value.units * 10n ** BigInt(scale - value.scale);
}

function decimalText(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`.replace(/\.?0+$/, '');
  return `${negative ? '-' : ''}${text}`;
}

// --------------------------------------------------------------- the tables

function table(head: string[], rows: (Node | string)[][], numeric: number[] = []): HTMLElement {
  const th = head.map((text, i) => el('th', { scope: 'col', ...(numeric.includes(i) ? { class: 'num' } : {}) }, text));
  const body = rows.map((cells) => el('tr', {}, ...cells.map((cell, i) => el('td', numeric.includes(i) ? { class: 'num' } : {}, cell))));
  return el('div', { class: 'table-wrap' }, el('table', {}, el('thead', {}, el('tr', {}, ...th)), el('tbody', {}, ...body)));
}

const when = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
/** A time in a table cell: the day and the time each kept whole, so that a phone's narrow column breaks between them, not inside the date. */
const whenCell = (iso: string) => {
  const [day, time] = when(iso).split(' ');
  return el('time', { datetime: iso }, el('span', { class: 'nowrap' }, day ?? ''), ' ', el('span', { class: 'nowrap' }, time ?? ''));
};

function showPlayerCard(): void {
  if (!current) {
    ui.player.replaceChildren(el('p', { class: 'muted' }, 'No player chosen.'));
    return;
  }
  ui.player.replaceChildren(
    el(
      'p',
      { class: 'balance' },
      el('span', { class: 'muted' }, `${current.playerId} · ${current.country ?? 'no country'} · `),
      el('output', { id: 'player-balance' }, money(current.balance, current.currency)),
    ),
    el('p', { class: current.blocked ? 'warning' : 'muted' }, current.blocked ? 'Blocked: bets are refused; wins and payouts still land.' : 'Active'),
  );
  ui.block.textContent = current.blocked ? 'Unblock' : 'Block';
  ui.block.disabled = false;
  (ui.deposit.elements.namedItem('currency-shown') as HTMLOutputElement).value = current.currency;
}

function showRounds(): void {
  const game = ui.roundGame.value;
  // A game is a studio's: the same slug at two studios is two entries of the filter.
  const games = [...new Set(pages.rounds.map(studioGame))];
  const chosen = ui.roundGame.value;
  ui.roundGame.replaceChildren(el('option', { value: '' }, 'All games'), ...games.map((g) => el('option', { value: g }, g)));
  ui.roundGame.value = games.includes(chosen) ? chosen : '';
  const rows = pages.rounds
    .filter((r) => game === '' || studioGame(r) === game)
    .map((r) => {
      const open = el('button', { type: 'button', 'data-round': r.roundId }, 'History');
      open.addEventListener('click', () => void showRound(r));
      // Ids are time-ordered: their ends tell rounds apart, the whole id is in the title.
      return [el('code', { title: r.roundId }, `…${r.roundId.slice(-12)}`), studioGame(r), r.finished ? 'finished' : 'open', whenCell(r.createdAt), open];
    });
  ui.rounds.replaceChildren(rows.length === 0 ? el('p', { class: 'muted' }, 'No rounds.') : table(['Round', 'Game', 'State', 'Started', ''], rows));
  ui.roundsMore.hidden = pages.roundsNext === null;
}

function showTransfers(): void {
  const kind = ui.transferKind.value;
  const rows = pages.transfers
    .filter((t) => kind === '' || t.kind === kind)
    .map((t) => [
      whenCell(t.createdAt),
      t.kind + (t.freeBet ? ' (free)' : ''),
      String(t.amount),
      t.game === null ? '' : studioGame({ integration: t.integration ?? 'default', game: t.game }),
      t.roundId === null ? '' : el('code', { title: t.roundId }, `…${t.roundId.slice(-12)}`),
    ]);
  ui.transfers.replaceChildren(
    rows.length === 0
      ? el('p', { class: 'muted' }, 'No transactions.')
      : table(['When', 'Kind', `Amount (${current?.currency ?? ''})`, 'Game', 'Round'], rows, [2]),
  );
  ui.transfersMore.hidden = pages.transfersNext === null;
}

async function loadRounds(more = false): Promise<void> {
  if (!current) return;
  const cursor = more && pages.roundsNext ? `&cursor=${pages.roundsNext}` : '';
  const page = await admin<Page<Round>>('GET', `/players/${encodeURIComponent(current.playerId)}/rounds?limit=${PAGE_SIZE}${cursor}`);
  pages.rounds = more ? [...pages.rounds, ...page.items] : page.items;
  pages.roundsNext = page.nextCursor;
  showRounds();
}

async function loadTransfers(more = false): Promise<void> {
  if (!current) return;
  const cursor = more && pages.transfersNext ? `&cursor=${pages.transfersNext}` : '';
  const page = await admin<Page<Transfer>>('GET', `/players/${encodeURIComponent(current.playerId)}/transactions?limit=${PAGE_SIZE}${cursor}`);
  pages.transfers = more ? [...pages.transfers, ...page.items] : page.items;
  pages.transfersNext = page.nextCursor;
  showTransfers();
}

/** A round's full history: the operator's bookings of it, and each request the provider sent about it with the answer. */
async function showRound(round: Round): Promise<void> {
  if (!current) return;
  try {
    const [booked, sent, waiting] = await Promise.all([
      admin<Page<Transfer>>('GET', `/players/${encodeURIComponent(current.playerId)}/transactions?limit=${PAGE_MAX}`),
      provider<{ items: OutboxItem[] }>('GET', `/outbox?status=sent&body=1&limit=${PAGE_MAX}`),
      provider<{ items: OutboxItem[] }>('GET', `/outbox?status=pending&body=1&limit=${PAGE_MAX}`),
    ]);
    const bookings = booked.items.filter((t) => t.roundId === round.roundId).reverse();
    const requests = [...sent.items, ...waiting.items].filter((item) => item.body?.includes(round.roundId));
    ui.round.replaceChildren(
      el('h3', {}, `Round ${round.roundId}`),
      el(
        'p',
        { class: 'muted' },
        `${round.game} · ${round.finished ? 'finished' : 'open'} · started ${when(round.createdAt)}${round.finishedAt ? ` · finished ${when(round.finishedAt)}` : ''}`,
      ),
      el('h4', {}, 'Booked by the operator'),
      table(
        ['When', 'Kind', `Amount (${current.currency})`, 'Transaction id'],
        bookings.map((t) => [whenCell(t.createdAt), t.kind, String(t.amount), el('code', {}, t.id)]),
        [2],
      ),
      el('h4', {}, 'Requests from the provider and their answers'),
      ...(requests.length === 0
        ? [el('p', { class: 'muted' }, 'The provider holds no request of this round (rounds of another provider, or older than its outbox keeps).')]
        : requests.map((item) =>
            el(
              'div',
              { class: 'request' },
              el('p', {}, `${item.path} · ${item.status} after ${item.attempts} attempt(s) · ${when(item.createdAt)}`),
              el('p', { class: 'muted' }, 'Request'),
              el('pre', {}, item.body ?? ''),
              el('p', { class: 'muted' }, 'Answer'),
              el('pre', {}, JSON.stringify(item.lastAnswer, null, 1)),
            ),
          )),
    );
    ui.round.hidden = false;
    ui.round.scrollIntoView({ block: 'start' });
  } catch (error) {
    fail(error);
  }
}

// ------------------------------------------------------------------ charts

async function drawPlayerCharts(): Promise<void> {
  if (!current) return;
  const page = await admin<Page<Transfer>>('GET', `/players/${encodeURIComponent(current.playerId)}/transactions?limit=${PAGE_MAX}`);
  const transfers = [...page.items].reverse(); // oldest first
  const scale = Math.max(decimalOf(current.balance).scale, ...transfers.map((t) => decimalOf(t.amount).scale));
  // A free bet is paid by the operator's campaign, not by the player (src/ledger/accounts.ts): it moves no balance.
  const sign = (t: Transfer) => (t.freeBet ? 0n : t.kind === 'bet' || t.kind === 'withdrawal' ? -1n : 1n);
  // The balance before the oldest transfer shown, walked back from today's exact balance.
  let balance = atScale(decimalOf(current.balance), scale) - transfers.reduce((sum, t) => sum + sign(t) * atScale(decimalOf(t.amount), scale), 0n);
  const points = transfers.map((t) => {
    balance += sign(t) * atScale(decimalOf(t.amount), scale);
    const text = decimalText(balance, scale);
    return { x: when(t.createdAt).slice(0, 16), y: Number(text), text };
  });
  const playerId = current.playerId;
  drawChart(ui.balanceChart, (width) => [lineChart(`Balance of ${playerId} over its last ${transfers.length} transactions`, points, width)]);
}

/**
 * Each chart box's drawing, kept so that a box whose width changes (a window made narrower, a phone
 * turned) is drawn again at its new width: charts are drawn one unit a pixel (charts.ts).
 */
const drawings = new Map<HTMLElement, { draw: (width: number) => Node[]; width: number }>();

function drawChart(box: HTMLElement, draw: (width: number) => Node[]): void {
  const width = box.clientWidth;
  drawings.set(box, { draw, width });
  box.replaceChildren(...draw(width));
}

/** How long the window's size must hold before the charts are drawn again (ms): one drawing per resize, not one per frame. */
const REDRAW_AFTER_RESIZE_MS = 200;
let redrawTimer: ReturnType<typeof setTimeout> | undefined;
window.addEventListener('resize', () => {
  clearTimeout(redrawTimer);
  redrawTimer = setTimeout(() => {
    for (const [box, drawing] of drawings) if (box.clientWidth !== drawing.width) drawChart(box, drawing.draw);
  }, REDRAW_AFTER_RESIZE_MS);
});

/** A game as the casino tells it: its slug, after its studio's id when it is not the environment's own integration. */
function studioGame(row: { integration: string; game: string }): string {
  return row.integration === 'default' ? row.game : `${row.integration}/${row.game}`;
}

/** The casino's GGR per game per day (GET /admin/ggr, last 30 days): one chart per currency, whose amounts cannot be added. */
async function drawGgr(): Promise<void> {
  const report = await admin<{ from: string; to: string; rows: GgrRow[] }>('GET', '/ggr');
  const currencies = [...new Set(report.rows.map((row) => row.currency))].sort();
  drawChart(ui.ggrChart, (width) =>
    currencies.length === 0
      ? [el('p', { class: 'muted' }, `No bets from ${report.from} to ${report.to}.`)]
      : currencies.map((currency) =>
          barChart(
            `Gross gaming revenue of the casino per game per day, ${currency}, ${report.from} to ${report.to}`,
            report.rows
              .filter((row) => row.currency === currency)
              .map((row) => ({ label: `${studioGame(row)} ${row.day.slice(5)}`, value: row.ggr, text: `${row.ggr} ${currency}` })),
            width,
          ),
        ),
  );
}

/**
 * The provider's calls the operator answered (/authenticate, /transaction,
 * /payout), per answer code, since the operator started: its /metrics
 * (Prometheus text; the back office's token reads it), the same counts a
 * scraper reads, drawn again every LIVE_REFRESH_MS.
 */
async function drawCodes(): Promise<void> {
  const text = await withToken('admin', async () => {
    const answer = await fetch('/metrics', { headers: { authorization: `Bearer ${tokens.admin}` } });
    const body = await answer.text();
    if (answer.ok) return body;
    let problem: { code?: string; detail?: string } = {};
    try {
      problem = JSON.parse(body) as typeof problem;
    } catch {
      // Not problem+json: the status says it.
    }
    throw new ApiProblem(answer.status, problem.code ?? `HTTP_${answer.status}`, problem.detail ?? `/metrics answered ${answer.status}`);
  });
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^wagerlink_http_request_duration_seconds_count\{([^}]*)\} (\d+)/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...match[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (!['/transaction', '/authenticate', '/payout'].includes(labels.route ?? '')) continue;
    const code = labels.code || labels.status || '?';
    counts.set(code, (counts.get(code) ?? 0) + Number(match[2]));
  }
  const bars = [...counts].sort().map(([code, n]) => ({ label: code === '' ? 'OK' : code, value: n, text: String(n) }));
  drawChart(ui.codesChart, (width) => [barChart('Wallet requests by answer code since the operator started', bars, width)]);
}

// -------------------------------------------------------------- the outbox

/**
 * Resolve: settles a parked item (or a pending one between attempts) by hand
 * with the operator's reference for what it booked, or that it booked
 * nothing; the item is not sent again, and its round's later items go on.
 */
function resolveForm(item: OutboxItem): HTMLFormElement {
  const reference = el('input', {
    name: 'reference',
    required: '',
    maxlength: '256',
    autocomplete: 'off',
    'aria-label': `The operator's reference for item ${item.id}`,
    placeholder: "Operator's reference",
  });
  const form = el('form', { class: 'resolve', 'data-item': item.id }, reference, el('button', { type: 'submit' }, 'Resolve'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = reference.value.trim();
    if (text === '') return fail(new Error("Resolve: the operator's reference, such as its transaction id"));
    provider<OutboxItem>('POST', `/outbox/${item.id}/resolve`, { reference: text })
      .then((resolved) => {
        say(`Item ${resolved.id} is ${resolved.status} with the reference ${text}.`);
        return loadOutbox();
      })
      .catch(fail);
  });
  return form;
}

/** An item's last answer in short (its status and code), the whole of it in the title. */
function answerShown(answer: unknown): HTMLElement {
  const whole = JSON.stringify(answer) ?? '';
  const { status, code } = (answer ?? {}) as { status?: unknown; code?: unknown };
  const short = typeof status === 'number' ? `${status}${typeof code === 'string' ? ` ${code}` : ''}` : whole;
  return el('code', { class: 'answer', title: whole }, short);
}

/** The sandbox's Casino down switch (casino-outage.ts): while on, the operator answers the provider 503 and the outbox keeps what it could not deliver. */
function showOutage(down: boolean): void {
  ui.outage.setAttribute('aria-pressed', String(down));
  ui.outage.textContent = down ? 'Casino back up' : 'Casino down';
  ui.outageState.textContent = down
    ? 'The casino answers the provider 503: rounds and payouts wait in the outbox, and are parked after the horizon.'
    : 'The casino answers the provider.';
}

async function loadOutage(): Promise<void> {
  showOutage((await api<{ down: boolean }>('GET', '/backoffice/api/outage', undefined, tokens.admin)).down);
}

async function loadOutbox(): Promise<void> {
  const status = ui.outboxStatus.value;
  const page = await provider<{ items: OutboxItem[] }>('GET', `/outbox?status=${status}&limit=50`);
  const rows = page.items.map((item) => {
    const actions = el('div', { class: 'actions' });
    // What the provider's /admin/outbox/:id/retry and /resolve accept: the API refuses any other state with STATE_CONFLICT.
    if (item.status === 'parked' || item.status === 'refused' || item.status === 'pending') {
      const retry = el('button', { type: 'button' }, 'Retry');
      retry.addEventListener('click', () => void provider('POST', `/outbox/${item.id}/retry`, {}).then(loadOutbox).catch(fail));
      actions.append(retry);
    }
    if (item.status === 'parked' || item.status === 'pending') actions.append(resolveForm(item));
    return [el('code', {}, item.id), item.kind, item.path, item.status, String(item.attempts), answerShown(item.lastAnswer), actions];
  });
  ui.outbox.replaceChildren(
    rows.length === 0 ? el('p', { class: 'muted' }, `No ${status} items.`) : table(['Id', 'Kind', 'Path', 'Status', 'Attempts', 'Last answer', ''], rows, [4]),
  );
}

// --------------------------------------------------------------- audit log

async function loadAudit(): Promise<void> {
  const page = await admin<{ items: AuditRow[] }>('GET', `/audit?limit=${AUDIT_ROWS}`);
  const rows = page.items.map((row) => [
    new Date(row.at).toISOString().replace('T', ' ').slice(0, 19),
    row.tokenId === null ? row.actor : `${row.actor} (${row.tokenId})`,
    `${row.method} ${row.route}`,
    row.target ?? '',
    row.amount === null ? '' : `${row.amount} ${row.currency ?? ''}`.trim(),
    row.address ?? '',
    row.code === null ? String(row.status) : `${row.status} ${row.code}`,
  ]);
  ui.audit.replaceChildren(
    rows.length === 0 ? el('p', { class: 'muted' }, 'Nothing yet.') : table(['When (UTC)', 'Who', 'What', 'Target', 'Amount', 'From', 'Answer'], rows, [4]),
  );
}

// ------------------------------------------------------------- all players

/** Players per page of the list; More appends the next. */
const PLAYERS_PAGE_SIZE = 20;

function showPlayers(): void {
  const rows = listing.players.map((p) => {
    const show = el('button', { type: 'button', 'data-player': p.playerId }, 'Show');
    show.addEventListener('click', () => void choose(p.playerId));
    return [p.playerId, p.currency, String(p.balance), p.blocked ? 'blocked' : 'active', p.country ?? '', show];
  });
  ui.players.replaceChildren(
    rows.length === 0 ? el('p', { class: 'muted' }, 'No players match.') : table(['Player', 'Currency', 'Balance', 'State', 'Country', ''], rows, [2]),
  );
  ui.playersMore.hidden = listing.next === null;
  ui.known.replaceChildren(...listing.players.map((p) => el('option', { value: p.playerId })));
}

/** A page of GET /admin/players with the filter's fields; `more` appends the page after the last one shown. */
async function loadPlayers(more = false): Promise<void> {
  const filter = fields(ui.playersFilter);
  const query = new URLSearchParams({ limit: String(PLAYERS_PAGE_SIZE) });
  for (const name of ['prefix', 'currency', 'blocked']) if (filter[name]) query.set(name, filter[name]!);
  if (more && listing.next !== null) query.set('cursor', listing.next);
  const page = await admin<Page<Player>>('GET', `/players?${query.toString()}`);
  listing.players = more ? [...listing.players, ...page.items] : page.items;
  listing.next = page.nextCursor;
  showPlayers();
}

// ------------------------------------------------------------------ wiring

async function choose(playerId: string): Promise<void> {
  try {
    current = await admin<Player>('GET', `/players/${encodeURIComponent(playerId)}`);
    ui.picker.value = current.playerId;
    (ui.payout.elements.namedItem('playerId') as HTMLInputElement).value = current.playerId;
    (ui.payout.elements.namedItem('currency') as HTMLInputElement).value = current.currency;
    ui.round.hidden = true;
    showPlayerCard();
    await Promise.all([loadRounds(), loadTransfers(), drawPlayerCharts()]);
  } catch (error) {
    fail(error);
  }
}

async function refresh(): Promise<void> {
  if (current) await choose(current.playerId);
  await Promise.all([loadPlayers(), loadOutbox(), drawGgr(), drawCodes(), loadAudit()]).catch(fail);
}

/** What is read again on its own while the page is visible: the outbox and the codes chart. */
let liveTimer: ReturnType<typeof setInterval> | undefined;

function refreshLive(): void {
  if (document.visibilityState !== 'visible' || ui.app.hidden) return;
  // Not while a person is at the outbox (typing a reference, or a button in focus): the table would be drawn anew under them.
  const typing = ui.outbox.contains(document.activeElement) || [...ui.outbox.querySelectorAll('input')].some((input) => input.value !== '');
  if (!typing) void loadOutbox().catch(fail);
  void drawCodes().catch(fail);
}

function startLive(): void {
  stopLive();
  liveTimer = setInterval(refreshLive, LIVE_REFRESH_MS);
}

function stopLive(): void {
  clearInterval(liveTimer);
  liveTimer = undefined;
}

document.addEventListener('visibilitychange', () => {
  if (liveTimer !== undefined) refreshLive();
});

function start(): void {
  ui.tokenForm.hidden = true;
  ui.tokenProblem.hidden = true;
  ui.app.hidden = false;
  startLive();
  loadPlayers()
    .then(() => {
      const first = new URLSearchParams(location.search).get('player') ?? listing.players[0]?.playerId;
      if (first) void choose(first);
    })
    .catch(fail);
  void loadOutbox().catch(fail);
  void withToken('admin', loadOutage).catch(fail);
  void loadAudit().catch(fail);
  void drawGgr().catch(fail);
  void drawCodes().catch(fail);
}

ui.playersFilter.addEventListener('submit', (event) => {
  event.preventDefault();
  void loadPlayers().catch(fail);
});
ui.playersMore.addEventListener('click', () => void loadPlayers(true).catch(fail));

ui.find.addEventListener('submit', (event) => {
  event.preventDefault();
  void choose(ui.picker.value.trim());
});

ui.create.addEventListener('submit', (event) => {
  event.preventDefault();
  const input = fields(ui.create);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(input.balance ?? '')) return fail(new Error('Opening balance: a number such as 50 or 12.50'));
  const body = `{"playerId":${JSON.stringify(input.playerId)},"currency":${JSON.stringify(input.currency)},"balance":${input.balance},"country":${JSON.stringify((input.country ?? '').toUpperCase())}}`;
  admin<Player>('POST', '/players', body)
    .then((player) => {
      ui.create.reset();
      say(`Created ${player.playerId} with ${money(player.balance, player.currency)}.`);
      return choose(player.playerId);
    })
    .catch(fail);
});

ui.deposit.addEventListener('submit', (event) => {
  event.preventDefault();
  if (!current) return fail(new Error('Choose a player first'));
  const input = fields(ui.deposit);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(input.amount ?? '')) return fail(new Error('Amount: a number such as 50 or 12.50'));
  // A fresh id per submission: the adjustment is idempotent by it, so a resend of this one would book once.
  const body = `{"id":"${crypto.randomUUID()}","type":${JSON.stringify(input.type)},"amount":${input.amount},"reason":"back office"}`;
  const player = current;
  admin<{ balance: number }>('POST', `/players/${encodeURIComponent(player.playerId)}/adjustments`, body)
    .then((done) => {
      ui.deposit.reset();
      say(
        `${input.type === 'deposit' ? 'Deposited' : 'Withdrew'} ${money(Number(input.amount), player.currency)}: balance ${money(done.balance, player.currency)}.`,
      );
      return choose(player.playerId);
    })
    .catch(fail);
});

ui.block.addEventListener('click', () => {
  if (!current) return;
  const player = current;
  admin<Player>('POST', `/players/${encodeURIComponent(player.playerId)}/${player.blocked ? 'unblock' : 'block'}`, '{"reason":"back office"}')
    .then((updated) => {
      say(`${updated.playerId} is ${updated.blocked ? 'blocked' : 'unblocked'}.`);
      return choose(updated.playerId);
    })
    .catch(fail);
});

ui.roundGame.addEventListener('change', showRounds);
ui.transferKind.addEventListener('change', showTransfers);
ui.roundsMore.addEventListener('click', () => void loadRounds(true).catch(fail));
ui.transfersMore.addEventListener('click', () => void loadTransfers(true).catch(fail));
ui.outboxStatus.addEventListener('change', () => void loadOutbox().catch(fail));
ui.auditReload.addEventListener('click', () => void loadAudit().catch(fail));
ui.outage.addEventListener('click', () => {
  const down = ui.outage.getAttribute('aria-pressed') !== 'true';
  api<{ down: boolean }>('POST', '/backoffice/api/outage', { down }, tokens.admin)
    .then((state) => showOutage(state.down))
    .catch(fail);
});
$('refresh').addEventListener('click', () => void refresh());

ui.verify.addEventListener('click', () => {
  admin<{ ok: boolean }>('GET', '/verify')
    .then((result) => {
      ui.verified.replaceChildren(
        el('p', { class: result.ok ? 'done' : 'problem', id: 'verify-result' }, result.ok ? 'The books balance.' : 'The books do NOT balance.'),
        el('pre', {}, JSON.stringify(result, null, 1)),
      );
    })
    .catch(fail);
});

ui.payout.addEventListener('submit', (event) => {
  event.preventDefault();
  const input = fields(ui.payout);
  const body = {
    operatorId: input.operatorId,
    playerId: input.playerId,
    currency: input.currency,
    amount: input.amount,
    campaignId: input.campaignId || crypto.randomUUID(),
  };
  provider<{ payoutId: string; status: string }>('POST', '/payouts', body)
    .then((payout) => {
      say(`Payout ${payout.payoutId} of ${body.amount} ${body.currency} to ${body.playerId}: ${payout.status}.`);
      (ui.payout.elements.namedItem('campaignId') as HTMLInputElement).value = '';
      // The provider delivers it to the operator in the background: look again shortly.
      setTimeout(() => void refresh(), 1000);
    })
    .catch(fail);
});

$<HTMLFormElement>('token-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = fields(ui.tokenForm);
  tokens.admin = input.admin ?? '';
  tokens.provider = input.provider ?? '';
  sessionStorage.setItem(TOKENS_KEY, JSON.stringify(tokens));
  start();
});

// The tokens: from the fragment the sandbox printed (then taken out of the address bar), or from this tab's storage.
const fragment = new URLSearchParams(location.hash.slice(1));
if (fragment.get('admin')) {
  tokens.admin = fragment.get('admin')!;
  tokens.provider = fragment.get('provider') ?? '';
  sessionStorage.setItem(TOKENS_KEY, JSON.stringify(tokens));
  history.replaceState(null, '', location.pathname + location.search);
} else {
  Object.assign(tokens, JSON.parse(sessionStorage.getItem(TOKENS_KEY) ?? '{}') as object);
}
ui.outboxStatus.replaceChildren(...OUTBOX_STATUSES.map((status) => el('option', {}, status)));
if (tokens.admin) start();
else ui.tokenForm.hidden = false;
