/**
 * The wallet rules of docs/protocol.md §5–§7, as pure functions: each plans one
 * request against a snapshot that a store read inside its database
 * transaction, and returns either a refusal or the exact writes to make.
 * Nothing here does I/O or reads a clock; stores and tests call them alike.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { refuse, type ErrorCode, type Refusal } from '../protocol/errors.js';
import { shownId, type CheckedPayout, type CheckedTransaction } from '../protocol/checked-requests.js';
import {
  amountToMinor,
  BALANCE_MINOR_MAX,
  decimalFromNumber,
  decimalText,
  displayMinor,
  formatMinor,
  type Currencies,
  type Decimal,
} from '../protocol/money.js';
import { legsOf, type TransferKind, type TransferLegs } from './accounts.js';

export interface RulesConfig {
  /** A session with no activity for this long refuses bets (docs/protocol.md §5). Default 30 min. */
  sessionIdleMs: number;
  /** A launch key not used within this long is dead (docs/protocol.md §5). Default 10 min. */
  launchKeyTtlMs: number;
}

export const DEFAULT_RULES: RulesConfig = {
  sessionIdleMs: 30 * 60_000, // ms
  launchKeyTtlMs: 10 * 60_000, // ms
};

export interface PlayerState {
  playerId: string;
  currency: string;
  decimals: number;
  /** Minor units. */
  balance: bigint;
  blocked: boolean;
}

export interface SessionState {
  sessionId: string;
  playerId: string;
  game: string;
  /** Epoch ms of the last accepted request that counted as activity. */
  lastActiveAt: number;
  /** The integration that opened it (docs/protocol.md §2.6): only its calls act on it. */
  integrationId: string;
}

/** What the ledger already holds under an idempotency id: a booked transfer, or a refused transaction. */
export interface SeenTransfer {
  kind: TransferKind;
  playerId: string;
  roundId: string | null;
  campaignId: string | null;
  amount: bigint;
  jpAmount: bigint;
  /** Set when the id belongs to a request the wallet rules refused (§6.4): the refusal it was answered. */
  refused?: { code: ErrorCode; detail: string };
}

/**
 * The refusals that are final (docs/protocol.md §6.4): the wallet judged the
 * request against its state and said no. Such a request is remembered with
 * its transaction ids, and the same ids are answered the same refusal ever
 * after, even once the balance or the player's state would allow them: the
 * provider has closed that round as refused, and booking a replay later
 * would make the two sides disagree about money. Refusals the wallet never
 * judged (malformed, unauthenticated, an unknown session) are not
 * remembered: the same ids may come again, corrected.
 */
export const FINAL_REFUSAL_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'INSUFFICIENT_FUNDS',
  'SESSION_EXPIRED',
  'PLAYER_BLOCKED',
  'SESSION_MISMATCH',
  'ROUND_CLOSED',
  'ROUND_MISMATCH',
  'CAMPAIGN_FINISHED',
  'INTEGRATION_PAUSED',
]);

/** A transaction of a refused request, as it is remembered: its content, for a repeat to be compared with, and the refusal. */
export interface RefusedTransaction {
  id: string;
  kind: 'bet' | 'win';
  /** The playerId the request named (the session's player may differ: SESSION_MISMATCH). */
  playerId: string;
  roundId: string;
  amount: bigint;
  jpAmount: bigint;
  code: ErrorCode;
  detail: string;
}

/** A refusal of /transaction; `remember` lists what the store must keep for it to be final (empty when it is not). */
export interface TransactionRefusal extends Refusal {
  remember: readonly RefusedTransaction[];
}

export interface RoundState {
  playerId: string;
  game: string;
  finished: boolean;
  /** The integration whose call opened it (docs/protocol.md §2.6): its game is that studio's. */
  integrationId: string;
}

/**
 * Stores record session activity at most this often per session (ms):
 * expiry is measured in minutes, and skipping the write saves a row update
 * on most bets.
 */
export const SESSION_TOUCH_INTERVAL_MS = 1_000;

export function isSessionActive(session: SessionState, now: number, config: RulesConfig): boolean {
  return now - session.lastActiveAt < config.sessionIdleMs;
}

/**
 * Whether a request at `now` records activity on the session. It never
 * moves the activity back: nodes whose clocks differ a little may serve the
 * same session, and an earlier clock must not shorten it.
 */
function touchDue(session: SessionState, now: number): boolean {
  return now - session.lastActiveAt >= SESSION_TOUCH_INTERVAL_MS;
}

// ---------------------------------------------------------------- /transaction

export interface TransactionSnapshot {
  session: SessionState | undefined;
  /** The session's player. */
  player: PlayerState | undefined;
  /** Transfers already booked under the request's transaction ids, by canonical id. */
  seen: ReadonlyMap<string, SeenTransfer>;
  round: RoundState | undefined;
  /** True if campaign.id is already finished for this player. */
  campaignFinished: boolean;
  now: number;
  /**
   * The calling integration's bets are paused (access/integrations.ts):
   * a new bet is refused INTEGRATION_PAUSED, final like the other
   * refusals of a bet; wins, and ids booked before, are answered as ever.
   */
  betsPaused?: boolean;
  /**
   * The calling integration's id: a session another integration opened is
   * refused INTEGRATION_MISMATCH, after idempotency, and not kept.
   */
  integrationId: string;
}

export interface PlannedTransfer {
  id: string;
  kind: 'bet' | 'win';
  amount: bigint;
  jpAmount: bigint;
  freeBet: boolean;
  /** The accounts it moves money between (accounts.ts). */
  legs: TransferLegs;
}

export interface TransactionPlan {
  ok: true;
  /** New transfers in request order; empty for a full replay. */
  transfers: PlannedTransfer[];
  balanceBefore: bigint;
  balanceAfter: bigint;
  createRound: boolean;
  closeRound: boolean;
  /** campaign.id to mark finished for the player. */
  closeCampaign: string | undefined;
  /**
   * Record activity on the session: due at most every SESSION_TOUCH_INTERVAL_MS, never on an expired
   * one (wins do not revive it), and never back in time.
   */
  touchSession: boolean;
}

/** The balance member of a refusal: exact JSON number text. */
export function balanceText(player: PlayerState): string {
  return formatMinor(player.balance, player.decimals);
}

/**
 * An exact amount in the player's currency's minor units, or why it cannot
 * be booked in that currency (more decimals than it has, more than the
 * largest amount): the one judgement of an amount that needs the player.
 */
function minorOf(amount: Decimal, field: string, player: PlayerState): bigint | Refusal {
  const minor = amountToMinor(amount, player.decimals);
  if (minor === 'too-many-decimals') {
    const value = decimalText(amount);
    return refuse('INVALID_REQUEST', `${field}: ${value} has more decimals than ${player.currency} allows (${player.decimals})`, balanceText(player));
  }
  if (minor === 'too-large') return refuse('INVALID_REQUEST', `${field}: ${decimalText(amount)} is more than the largest amount allowed`, balanceText(player));
  return minor;
}

/** A back-office amount, a JSON number its reader let through, in minor units (adjustments: their edge is the back office's). */
function minorOfNumber(value: number, field: string, player: PlayerState): bigint | Refusal {
  const decimal = decimalFromNumber(value);
  if (decimal === undefined) return refuse('INVALID_REQUEST', `${field}: must be a finite number >= 0`, balanceText(player));
  return minorOf(decimal, field, player);
}

export function planTransaction(request: CheckedTransaction, snap: TransactionSnapshot, config: RulesConfig): TransactionPlan | TransactionRefusal {
  const { session, player } = snap;
  if (!session || !player) return notFinal(refuse('SESSION_NOT_FOUND', `session ${shownId(request, request.sessionId)} is not known`));
  assert.equal(session.playerId, player.playerId, "snapshot: the player must be the session's");

  // Convert every amount first: validation of the whole request comes before any rule.
  const amounts: { amount: bigint; jpAmount: bigint }[] = [];
  for (const [index, tx] of request.transactions.entries()) {
    const amount = minorOf(tx.amount, `transactions[${index}].amount`, player);
    if (typeof amount !== 'bigint') return notFinal(amount);
    const jpAmount = tx.jpAmount === undefined ? 0n : minorOf(tx.jpAmount, `transactions[${index}].jpAmount`, player);
    if (typeof jpAmount !== 'bigint') return notFinal(jpAmount);
    // Judged at the edge on the exact decimals (checked-requests.ts); scaling both by one power of ten keeps
    // their order. The pair TigerStyle keeps: the refusal where the input arrives, the assert where it is used.
    assert.ok(jpAmount <= amount, 'a checked jpAmount is at most its amount');
    amounts.push({ amount, jpAmount });
  }

  const judged = judgeTransaction(request, snap, config, session, player, amounts);
  if (judged.ok) return judged;
  // Another integration's call keeps nothing on the session's player: its ids are not the session's to spend.
  if (!FINAL_REFUSAL_CODES.has(judged.code) || session.integrationId !== snap.integrationId) return notFinal(judged);
  // Final: every id of the request that the ledger does not hold yet is kept with the refusal, as first given.
  const roundId = request.round.id;
  const remember: RefusedTransaction[] = [];
  for (const [index, tx] of request.transactions.entries()) {
    const id = tx.id;
    if (snap.seen.has(id)) continue;
    const { amount, jpAmount } = amounts[index]!;
    remember.push({ id, kind: tx.type, playerId: request.playerId, roundId, amount, jpAmount, code: judged.code, detail: judged.detail });
  }
  const detail = 'repeated' in judged ? `refused before, and final: ${judged.detail}` : judged.detail;
  return { ok: false, code: judged.code, detail, ...(judged.balance === undefined ? {} : { balance: judged.balance }), remember };
}

/** The refusal as it is answered, once the store has kept what `remember` lists. */
export function withoutRemember({ remember: _kept, ...refusal }: TransactionRefusal): Refusal {
  return refusal;
}

function notFinal(refusal: Refusal): TransactionRefusal {
  return { ...refusal, remember: [] };
}

/** The rules of §6 after the amounts are converted: a plan, or a refusal that planTransaction sorts into final or not. */
// eslint-disable-next-line max-lines-per-function -- the rules of §6 in their order, so the order of refusals reads top to bottom
function judgeTransaction(
  request: CheckedTransaction,
  snap: TransactionSnapshot,
  config: RulesConfig,
  session: SessionState,
  player: PlayerState,
  amounts: readonly { amount: bigint; jpAmount: bigint }[],
): TransactionPlan | Refusal | (Refusal & { repeated: true }) {
  const balance = player.balance;
  // The balance as refusals show it: formatted only for a refusal, not for every bet.
  const shown = () => balanceText(player);
  // A session another integration opened: nothing but a repeat of what it booked is answered (below).
  const foreign = session.integrationId !== snap.integrationId;
  if (!foreign && request.playerId !== session.playerId) {
    return refuse('SESSION_MISMATCH', `playerId ${request.playerId} is not the session's player`, shown());
  }
  if (!foreign && request.game !== session.game) {
    return refuse('SESSION_MISMATCH', `game ${request.game} is not the session's game ${session.game}`, shown());
  }

  // Idempotency (§6.4): a seen id with other content fails the whole request; a refused one answers its refusal again.
  const roundId = request.round.id;
  const fresh: number[] = [];
  let refusedBefore: SeenTransfer['refused'];
  for (const [index, tx] of request.transactions.entries()) {
    const seen = snap.seen.get(tx.id);
    const { amount, jpAmount } = amounts[index]!;
    if (seen === undefined) {
      fresh.push(index);
      continue;
    }
    const same =
      seen.kind === tx.type && seen.playerId === request.playerId && seen.roundId === roundId && seen.amount === amount && seen.jpAmount === jpAmount;
    if (!same) {
      return refuse('DUPLICATE_CONFLICT', `transaction ${shownId(request, tx.id)} was seen before with other content`, shown());
    }
    refusedBefore ??= seen.refused;
  }
  if (refusedBefore) return { ...refuse(refusedBefore.code, refusedBefore.detail, shown()), repeated: true };
  if (fresh.length === 0) {
    return {
      ok: true,
      transfers: [],
      balanceBefore: balance,
      balanceAfter: balance,
      createRound: false,
      closeRound: false,
      closeCampaign: undefined,
      touchSession: false,
    };
  }
  // Judged after idempotency, as a pause is: a repeat of what was booked answers its balance. Refused without
  // the balance, which is not the caller's to read, and not final (planTransaction): the caller owns nothing here.
  if (foreign) {
    return refuse('INTEGRATION_MISMATCH', `session ${shownId(request, request.sessionId)} was opened by another integration`);
  }

  // Rounds (§6.5). A round another integration opened is of another studio's game, whatever its slug: refused
  // as a foreign session is, without the balance and not final, so that one studio can neither add to nor block
  // another's round. Judged before the round's player and game, so that nothing of them is told.
  const round = snap.round;
  if (round && round.integrationId !== snap.integrationId) {
    return refuse('INTEGRATION_MISMATCH', `round ${shownId(request, roundId)} was opened by another integration`);
  }
  if (round && (round.playerId !== request.playerId || round.game !== request.game)) {
    return refuse('ROUND_MISMATCH', `round ${shownId(request, roundId)} belongs to another player or game`, shown());
  }
  if (round?.finished) return refuse('ROUND_CLOSED', `round ${shownId(request, roundId)} is finished`, shown());

  const freeBets = request.campaign?.type === 'freeBets';
  const hasBet = fresh.some((index) => request.transactions[index]!.type === 'bet');
  if (hasBet) {
    // Judged after idempotency: a bet booked before the pause still answers its balance, never a refusal.
    if (snap.betsPaused === true) {
      return refuse('INTEGRATION_PAUSED', "the integration's bets are paused: bets are refused, wins and payouts are accepted", shown());
    }
    if (!isSessionActive(session, snap.now, config)) {
      return refuse('SESSION_EXPIRED', `session ${shownId(request, request.sessionId)} expired; bets are refused, wins are accepted`, shown());
    }
    if (player.blocked) return refuse('PLAYER_BLOCKED', `player ${player.playerId} is blocked: bets are refused`, shown());
    if (freeBets && snap.campaignFinished) {
      const campaign = request.campaign?.id;
      return refuse(
        'CAMPAIGN_FINISHED',
        `campaign ${campaign === undefined ? campaign : shownId(request, campaign)} is finished for player ${player.playerId}`,
        shown(),
      );
    }
  }

  // In order, against the running balance (§6.3).
  let running = balance;
  const campaignId = request.campaign?.id;
  const transfers: PlannedTransfer[] = [];
  for (const index of fresh) {
    const tx = request.transactions[index]!;
    const { amount, jpAmount } = amounts[index]!;
    const freeBet = tx.type === 'bet' && freeBets;
    if (tx.type === 'bet' && !freeBet) {
      if (amount > running) {
        return refuse('INSUFFICIENT_FUNDS', `bet ${displayMinor(amount, player.decimals)} exceeds balance ${displayMinor(running, player.decimals)}`, shown());
      }
      running -= amount;
    } else if (tx.type === 'win') {
      running += amount;
      if (running > BALANCE_MINOR_MAX) return refuse('INVALID_REQUEST', `transactions[${index}].amount: the balance would overflow`, shown());
    }
    const legs = legsOf({
      kind: tx.type,
      playerId: player.playerId,
      currency: player.currency,
      game: request.game,
      freeBet,
      campaignId,
      integrationId: snap.integrationId,
    });
    transfers.push({ id: tx.id, kind: tx.type, amount, jpAmount, freeBet, legs });
  }
  assert.ok(running >= 0n, 'a player balance never goes below zero');

  return {
    ok: true,
    transfers,
    balanceBefore: balance,
    balanceAfter: running,
    createRound: round === undefined,
    closeRound: request.round.finished,
    closeCampaign: freeBets && request.campaign?.finished && request.campaign.id ? request.campaign.id : undefined,
    touchSession: isSessionActive(session, snap.now, config) && touchDue(session, snap.now),
  };
}

// --------------------------------------------------------------------- /payout

export interface PayoutSnapshot {
  session: SessionState | undefined;
  player: PlayerState | undefined;
  seen: SeenTransfer | undefined;
  /** The calling integration's id: a session another integration opened is refused INTEGRATION_MISMATCH, after idempotency. */
  integrationId: string;
}

export interface CreditPlan {
  ok: true;
  /** False for an idempotent replay: nothing to write. */
  apply: boolean;
  amount: bigint;
  balanceAfter: bigint;
}

/** A payout's plan: what a credit plans, and the accounts it moves money between, the calling studio's tournament paying. */
export interface PayoutPlan extends CreditPlan {
  legs: TransferLegs;
}

export function planPayout(request: CheckedPayout, snap: PayoutSnapshot): PayoutPlan | Refusal {
  const { session, player } = snap;
  if (!session || !player) return refuse('SESSION_NOT_FOUND', `session ${shownId(request, request.sessionId)} is not known`);
  const amount = minorOf(request.amount, 'amount', player);
  if (typeof amount !== 'bigint') return amount;
  if (amount === 0n) return refuse('INVALID_REQUEST', 'amount: a payout must be greater than 0', balanceText(player));
  const campaignId = request.campaign.id;
  const legs = legsOf({ kind: 'payout', playerId: player.playerId, currency: player.currency, campaignId, integrationId: snap.integrationId });
  if (snap.seen) {
    const same = snap.seen.kind === 'payout' && snap.seen.playerId === player.playerId && snap.seen.amount === amount && snap.seen.campaignId === campaignId;
    if (!same) return refuse('DUPLICATE_CONFLICT', `payout ${shownId(request, request.payoutId)} was seen before with other content`, balanceText(player));
    return { ok: true, apply: false, amount, balanceAfter: player.balance, legs };
  }
  // Judged after idempotency, as on /transaction: a repeat of a booked payout answers its balance. Refused without
  // the balance, which is not the caller's to read: a studio pays its prizes on sessions its own calls opened.
  if (session.integrationId !== snap.integrationId) {
    return refuse('INTEGRATION_MISMATCH', `session ${shownId(request, request.sessionId)} was opened by another integration`);
  }
  const balanceAfter = player.balance + amount;
  if (balanceAfter > BALANCE_MINOR_MAX) return refuse('INVALID_REQUEST', 'amount: the balance would overflow', balanceText(player));
  return { ok: true, apply: true, amount, balanceAfter, legs };
}

// ---------------------------------------------------------------- adjustments

export interface AdjustmentCommand {
  id: string;
  playerId: string;
  type: 'deposit' | 'withdrawal';
  amount: number;
}

export function planAdjustment(command: AdjustmentCommand, player: PlayerState | undefined, seen: SeenTransfer | undefined): CreditPlan | Refusal {
  if (!player) return refuse('PLAYER_NOT_FOUND', `player ${command.playerId} is not known`);
  const amount = minorOfNumber(command.amount, 'amount', player);
  if (typeof amount !== 'bigint') return amount;
  if (amount === 0n) return refuse('INVALID_REQUEST', 'amount: an adjustment must be greater than 0', balanceText(player));
  if (seen) {
    const same = seen.kind === command.type && seen.playerId === player.playerId && seen.amount === amount;
    if (!same) return refuse('DUPLICATE_CONFLICT', `adjustment ${command.id} was seen before with other content`, balanceText(player));
    return { ok: true, apply: false, amount, balanceAfter: player.balance };
  }
  if (command.type === 'withdrawal') {
    if (amount > player.balance) {
      return refuse(
        'INSUFFICIENT_FUNDS',
        `withdrawal ${displayMinor(amount, player.decimals)} exceeds balance ${displayMinor(player.balance, player.decimals)}`,
        balanceText(player),
      );
    }
    return { ok: true, apply: true, amount, balanceAfter: player.balance - amount };
  }
  const balanceAfter = player.balance + amount;
  if (balanceAfter > BALANCE_MINOR_MAX) return refuse('INVALID_REQUEST', 'amount: the balance would overflow', balanceText(player));
  return { ok: true, apply: true, amount, balanceAfter };
}

// --------------------------------------------------------------- /authenticate

export interface LaunchKeyState {
  playerId: string;
  game: string;
  expiresAt: number;
  /** The integration the key was made for (docs/protocol.md §2.6): only its /authenticate opens it; null: any. */
  integrationId: string | null;
  /** The session the key opened, once used. */
  session: SessionState | undefined;
}

export type AuthenticatePlan =
  /** A reload: the same session; `touch` when the reload records activity (never back in time). */
  { ok: true; kind: 'existing'; session: SessionState; touch: boolean } | { ok: true; kind: 'new' };

export function planAuthenticate(
  game: string,
  key: LaunchKeyState | undefined,
  player: PlayerState | undefined,
  now: number,
  config: RulesConfig,
  /** The calling integration's id: a new session is opened for it, and only it reloads one. */
  integrationId: string,
  betsPaused = false,
): AuthenticatePlan | Refusal {
  // No game opens while the integration's bets are paused: no bet could follow it. Judged first, since it
  // holds whatever the key (a reload of an open session included), and it tells a caller nothing of the key.
  if (betsPaused) return refuse('INTEGRATION_PAUSED', "the integration's bets are paused: no game is opened until they resume");
  if (!key || !player) return refuse('INVALID_LAUNCH_KEY', 'launch key is not known');
  // A key made for one studio's game opens a session for that studio alone: judged as a key another's session
  // holds is, before anything of the key is told.
  if (key.integrationId !== null && key.integrationId !== integrationId) {
    return refuse('INTEGRATION_MISMATCH', 'launch key was made for another integration');
  }
  // A key whose session another integration opened is not this caller's: refused before anything of the key,
  // its player or its session is told (a game mismatch, a block, an expiry), and with no balance.
  if (key.session && key.session.integrationId !== integrationId) {
    return refuse('INTEGRATION_MISMATCH', 'launch key was used by another integration: its session belongs to that integration');
  }
  if (key.game !== game) return refuse('SESSION_MISMATCH', `launch key was issued for game ${key.game}, not ${game}`, balanceText(player));
  // A blocked or self-excluded player opens no game, not even by reloading an open one.
  if (player.blocked) return refuse('PLAYER_BLOCKED', `player ${player.playerId} is blocked`, balanceText(player));
  if (key.session) {
    // A reload with the same key answers the same session while it is active.
    if (isSessionActive(key.session, now, config)) return { ok: true, kind: 'existing', session: key.session, touch: now > key.session.lastActiveAt };
    return refuse('INVALID_LAUNCH_KEY', 'launch key was used and its session has expired');
  }
  if (now >= key.expiresAt) return refuse('INVALID_LAUNCH_KEY', 'launch key has expired');
  return { ok: true, kind: 'new' };
}

// ---------------------------------------------------------------- back office

/** The opening balance of a new player in minor units, or why it cannot be booked. */
export function planOpeningBalance(currency: string, balance: number, currencies: Currencies): bigint | Refusal {
  const decimals = currencies.decimals(currency);
  if (decimals === undefined) return refuse('INVALID_REQUEST', `currency: ${currency} is not a known currency`);
  const decimal = decimalFromNumber(balance);
  const opening = decimal === undefined ? undefined : amountToMinor(decimal, decimals);
  if (typeof opening !== 'bigint') {
    return refuse('INVALID_REQUEST', `balance: ${balance} is not a valid amount in ${currency} (${decimals} decimals)`);
  }
  return opening;
}

/**
 * What a store keeps of a launch key: its SHA-256 digest (32 bytes), never
 * the key. A key is a bearer credential (docs/protocol.md §5): whoever reads
 * it from a backup, a replica or the database's files could open a session
 * as the player. The key is looked up by this digest, so /authenticate pays
 * one hash per call: 2.8 µs measured on a busy 2-core machine, against the
 * milliseconds of its database transaction. A fast hash is the right tool
 * here, not a slow password hash (scrypt, Argon2): those slow down guessing
 * a low-entropy secret from its hash, and a launch key is 32 random bytes
 * (operator-service.ts), which no guessing reaches however fast each try.
 */
export function launchKeyDigest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** When a launch key issued at `now` dies unused (epoch ms). */
export function launchKeyExpiresAt(now: number, config: RulesConfig): number {
  return now + config.launchKeyTtlMs;
}

/** What a store knows of a page's cursor: whether it names one of the player's rows, and the player's newest row. */
export interface CursorFacts {
  namesPlayersRow: boolean;
  newest: bigint | null;
}

/**
 * A cursor is the `next` of an earlier page: it names one of the player's
 * rows, or lies past the player's newest row (a first page asked for
 * with a cursor); anything else is the caller's mistake.
 */
export function checkCursor(playerId: string, before: bigint, facts: CursorFacts): Refusal | undefined {
  if (facts.namesPlayersRow || facts.newest === null || before > facts.newest) return undefined;
  return refuse('INVALID_REQUEST', `cursor: ${before} is not a nextCursor of player ${playerId}`);
}
