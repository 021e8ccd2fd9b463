/**
 * The provider's store, whatever holds it: game sessions, the round log,
 * free-bet campaigns, tournament payouts and the durable outbox
 * (src/dispatch) their requests go through. The game service, the app, the
 * delivery and the back office know only this contract; the SQLite
 * and PostgreSQL implementations are sqlite/provider-store.ts and
 * postgres/provider-store.ts, each folder holding the same file names.
 *
 * Every method that reads or writes the database answers a promise. Each
 * write method is atomic as a whole: it is one database transaction (or,
 * on SQLite, one savepoint inside the turn's transaction), so a failure
 * leaves nothing of it, and the conditions it checks are checked inside
 * that transaction, never read first and written later. Where another
 * writer (another request of this process, or another provider node on the
 * same database) can get there first, the method answers a conflict
 * outcome, named on the method, instead of writing; nothing is ever played
 * or paid twice because two callers read the same state.
 *
 * A write is not yet durable when its promise resolves: `durable()`
 * resolves once everything written before it is on stable storage, and
 * nothing built from a write is answered before that. Writes of one
 * process are visible to its own reads at once.
 */
import assert from 'node:assert/strict';
import type { AuditEntry, StaffListing, StaffTokenFound } from '../../access/staff.js';
import type { AddStaffCommand, AuditPage, AuditPageRequest, RevokeStaffCommand, StaffAdded, StaffRevoked } from '../../staff/staff-commands.js';
import type { Outbox } from '../../dispatch/outbox.js';
import type { Refusal } from '../../protocol/errors.js';
import type { RoundBooksVerdict } from '../../rounds/books.js';
import type { CampaignTerms, GameKindOfRound, PayoutTerms, Mode, PlannedReelsRound, PlannedRound, RoundFacts, RoundStatus } from '../../rounds/facts.js';

// The facts the rules of rounds (src/rounds) read are theirs; the rows here are built on them.
export type { GameKindOfRound, Mode, ReelsPart, RoundStatus } from '../../rounds/facts.js';
export type { PayoutOutcome, RoundOutcome } from '../../rounds/outcomes.js';

/** A reels round's request, as the store keeps it. `waiting`: not yet enqueued (its turn has not come). */
export interface RoundCallRow {
  index: number;
  /** Its exact body: kept on the call while it waits, in its outbox item once enqueued (BODY_ONCE_MIGRATION). */
  body: string;
  status: 'waiting' | 'pending' | 'accepted' | 'refused';
  dispatchItemId: number | null;
  refusalCode: string | null;
  balanceAfterMinor: bigint | null;
  finishedAt: number | null;
}

export interface GameSessionRow {
  pk: number;
  sessionId: string;
  launchId: string;
  mode: Mode;
  operatorId: string;
  walletId: string | null;
  game: string;
  playerId: string | null;
  operatorSessionId: string | null;
  currency: string;
  country: string | null;
  language: string;
  balanceMinor: bigint;
  /**
   * The next round's server seed, sealed (seed-keyring.ts: its place is
   * the session at `nonce`): the database never holds it in plain text.
   */
  sealedSeed: string;
  /** Its commitment, SHA-256 of the seed: what the player is shown before the round. */
  serverSeedHash: string;
  nonce: number;
  createdAt: number;
  lastActiveAt: number;
}

/** The migration after which the database holds no seed not yet revealed in plain text (both backends' version 5). */
export const SEALED_SEEDS_MIGRATION = 'sealed-seeds';

/**
 * The migration after which a request's body is kept once, in its outbox
 * item (both backends' version 7): a real dice round's `request_body` and
 * an enqueued reels call's are NULL, and the readers take the item's.
 */
export const BODY_ONCE_MIGRATION = 'request-body-once';

/** A session's next seed as the store keeps it: sealed, and its commitment. */
export interface NextSeed {
  sealed: string;
  hash: string;
}

/**
 * What the upgrade of a database that held seeds in plain text
 * (`sealPlainSeeds`) needs of the keyring, which the store never holds.
 */
export interface SeedSealing {
  /** A fresh seed for a session's next round at `nonce`: sealed for that place, and its commitment. */
  fresh(sessionId: string, nonce: number): NextSeed;
  /** A round's seed, not yet revealed, sealed for that round. */
  sealForRound(seedHex: string, roundId: string): string;
}

/** A round as the store keeps it: the round's facts (src/rounds/facts.ts), numbered, with its delivery's progress. */
export interface RoundRow extends RoundFacts {
  pk: number;
  /** Times the request was claimed for sending (its outbox item's attempts). */
  attempts: number;
  /** The round's request in the outbox (real rounds), which holds its body (`requestBody` is read from it). */
  dispatchItemId: number | null;
  settledAt: number | null;
}

/** A round to write: as planned (src/rounds/plan.ts). */
export type NewRound = PlannedRound;

/** A reels round to write, with its draw's amounts and, real, its calls' bodies (src/rounds/plan.ts). */
export type NewReelsRound = PlannedReelsRound;

/** Free spins revealed: the round as written, or `moved` (another request revealed them first, or the round is finished): nothing written. */
export type FreeSpinWrite = { ok: true; round: RoundRow } | { ok: false; conflict: 'moved'; round: RoundRow };

/** A campaign as stored: its terms (src/rounds judges a repeated put by them) and when it was made. */
export interface CampaignRow extends CampaignTerms {
  createdAt: number;
}

export type PayoutStatus = 'pending' | 'paid' | 'refused';

/** A tournament prize, as the store keeps it: its terms (src/rounds judges a repeated request by them) and its delivery. */
export interface PayoutRow extends PayoutTerms {
  /** The operator's session of the player that the /payout request names. */
  operatorSessionId: string;
  /** Its /payout request in the outbox. */
  dispatchItemId: number;
  status: PayoutStatus;
  /** Paid: the balance of the operator's 200, null when it could not be read exactly or the payout was resolved by hand. */
  balanceAfterMinor: bigint | null;
  refusalCode: string | null;
  refusalDetail: string | null;
  createdAt: number;
  settledAt: number | null;
  /** Times its request was claimed for sending. */
  attempts: number;
}

/** A payout to create: what the back office asks for. Its content, for idempotency, is every field but `createdAt`. */
export interface NewPayout {
  payoutId: string;
  operatorId: string;
  playerId: string;
  currency: string;
  amountMinor: bigint;
  campaignId: string;
  createdAt: number;
}

/**
 * `created`: written and enqueued. `exists`: the same payout id with the
 * same content, answered as it is now (nothing written). `conflict`: the
 * payout id exists with other content (nothing written).
 */
export type PayoutWrite = { ok: true; kind: 'created' | 'exists' | 'conflict'; payout: PayoutRow } | Refusal;

/** A session to open: its row before the store numbers, times and counts it. */
export type NewSession = Omit<GameSessionRow, 'pk' | 'nonce' | 'createdAt' | 'lastActiveAt'> & { now: number };

/** `created`: written. `exists`: the same campaign id with the same content (players it did not have are added). `conflict`: the id exists with other content (nothing written). */
export type CampaignWrite = 'created' | 'exists' | 'conflict';

/**
 * A round's write: the round as written, or the conflict that stopped it
 * (nothing written). `nonce-moved`: the session's nonce is no longer the
 * round's, another round of the session was played first. `campaign-used`:
 * a free round whose campaign's rounds were used meanwhile, so that the
 * round would exceed the campaign or its `finished` flag would be wrong.
 * `insufficient-funds` (fun rounds): the balance does not cover the bet.
 */
export type RoundWrite =
  { ok: true; round: RoundRow } | { ok: false; conflict: 'nonce-moved' | 'campaign-used' | 'insufficient-funds'; session: GameSessionRow };

/**
 * The outbox as the store offers it. A retry or resolve by hand (the back
 * office's) takes `audit`, the call's audit row, written in the change's own
 * database transaction when the change applies (src/staff): the change and
 * its row commit together or not at all. A change that did not apply writes
 * no row here: the caller records its refusal apart.
 */
export interface ProviderOutbox extends Outbox {
  retryNow(id: number, now: number, audit?: AuditEntry): Promise<boolean>;
  resolve(id: number, reference: string, now: number, audit?: AuditEntry): Promise<boolean>;
}

export interface ProviderStore {
  /**
   * The outbox in this store's database, for the dispatcher. An outcome it
   * records and the round or payout that outcome finishes commit in one
   * database transaction (the store's final hook); a claim takes only
   * items whose commit is durable. A retry or resolve by hand takes the
   * back office's audit row (ProviderOutbox).
   */
  readonly outbox: ProviderOutbox;

  /** Resolves once everything written so far is committed and on stable storage; rejects if it could not be (nothing of that write was kept). */
  durable(): Promise<void>;

  /** Commits what is written and closes the database; closing again waits for the first close. */
  close(): Promise<void>;

  /**
   * Calls `listener` once with each real round this process's outbox
   * finishes: on a backend that group-commits (SQLite), inside the open
   * turn that finishes it, before its commit; on one whose outcome
   * transaction may run again after a conflict (PostgreSQL), once that
   * transaction has committed. Either way an answer built from it waits for
   * durable(). A backend that several nodes share (PostgreSQL) also calls it
   * with each round another node finishes, once that node's commit is seen,
   * so that a player waiting here for a round delivered elsewhere wakes. It
   * must not throw. Answers the function that stops it.
   */
  onRoundFinished(listener: (round: RoundRow) => void): () => void;

  // -------------------------------------------------------- game sessions

  sessionByLaunch(launchId: string): Promise<GameSessionRow | undefined>;

  /** The session; rejects if there is none (a pk comes only from the store). */
  session(pk: number): Promise<GameSessionRow>;

  /**
   * Creates the session of a launch. Atomic: a session already there for
   * the launch (a concurrent open, here or on another node, got there
   * first) is answered instead, and nothing is written.
   */
  createSession(input: NewSession): Promise<GameSessionRow>;

  /** A real session opened again (a reload): the operator's answer is the truth. Answers the session as written. */
  reopenSession(pk: number, operatorSessionId: string | null, balanceMinor: bigint, now: number): Promise<GameSessionRow>;

  touchSession(pk: number, now: number): Promise<void>;

  // --------------------------------------------------------------- rounds

  /**
   * Writes a real round as pending, enqueues its request (the exact body,
   * to the round's operator, the round id its ordering key) and commits the
   * session's next seed, all in one database transaction, only if, inside
   * it: the session's nonce is still the round's (else `nonce-moved`), and
   * for a free round, the campaign has a round left and the round is its
   * last exactly when `campaignFinished` says so (else `campaign-used`).
   * The body is kept once, in the outbox item; the round answers it as
   * `requestBody`, read through the item.
   */
  beginRealRound(round: NewRound & { requestBody: string }, nextSeed: NextSeed): Promise<RoundWrite>;

  /**
   * A fun round: the balance moves (bet out, win in), the seed advances and
   * the round is logged settled, in one database transaction, with one
   * conditional update on the session (its nonce still the round's and
   * its balance covering the bet), never a balance read first and written
   * after. Conflicts: `nonce-moved`, `insufficient-funds`; the session is
   * answered as it is.
   */
  playFunRound(round: NewRound, nextSeed: NextSeed): Promise<RoundWrite>;

  /**
   * A reels round, real or fun, in one database transaction, only if the
   * session's nonce is still the round's (else `nonce-moved`) and a free
   * round fits its campaign (else `campaign-used`); fun: only if the
   * balance covers the bet (else `insufficient-funds`).
   *
   * Its jackpot pool (one per operator, game and currency, created at the
   * seed) takes the bet's contribution; when the round hit the jackpot it
   * takes the pool (the contribution included) and resets the pool to the
   * seed, under the pool's row lock, so that two nodes never pay one pool
   * twice. Fun rounds touch no pool: a fun jackpot pays the seed.
   *
   * Real: every call's body is kept, the bet's call enqueued (its key the
   * round id); the outbox's final hook enqueues the next call once the one
   * before has a final answer — the base spin's right after the bet, the
   * feature's once its free spins are all played — so that a refused bet
   * ends the round with nothing sent after it (and returns the pool what
   * the round took), and a win the operator refuses is kept on its call
   * and in the outbox's refused items while the round goes on to its end.
   * Fun: the balance pays the bet and gets the base spin's win and the
   * jackpot at once, the feature's wins when the feature ends.
   */
  beginReelsRound(round: NewReelsRound, nextSeed: NextSeed): Promise<RoundWrite>;

  /**
   * Reveals a reels round's free spins from `played` up to `upTo`, only if
   * the round is unfinished and has `played` revealed (else `moved`). When
   * that ends the feature: real, its call is enqueued now if the base spin's
   * is answered (else that answer's hook enqueues it); fun, the feature's
   * wins are paid to the balance and the round settled; either way its
   * seed is revealed: `serverSeed` (the caller opened it; it must be the
   * one the round committed to) is written and the sealed one dropped.
   * `completedAt`: the provider completes a feature its player left
   * (recorded on the round).
   */
  playFreeSpins(roundPk: number, played: number, upTo: number, now: number, serverSeed: string, completedAt?: number): Promise<FreeSpinWrite>;

  /**
   * Seals what a database migrated from plain seeds (provider migration 5,
   * sealed-seeds) still lacks, each row in a conditional update, so that
   * nodes starting together each seal a row once: a session without a
   * sealed seed gets a fresh one (the plain seed it had was dropped by the
   * migration: every copy of the database made before held it, so its
   * commitment ended there), and a reels round whose seed is not yet
   * revealed has it sealed for the round and its plain text removed (its
   * draw was fixed when it was played, so its seed must stay). Answers how
   * many of each it sealed; nothing, once done.
   */
  sealPlainSeeds(seeds: SeedSealing): Promise<{ sessions: number; rounds: number }>;

  /** Reels rounds started at or before `startedBefore` whose feature is not played to its end, oldest first. */
  unfinishedFeatures(startedBefore: number, limit: number): Promise<RoundRow[]>;

  /** A reels round's calls, in order. */
  roundCalls(roundPk: number): Promise<RoundCallRow[]>;

  /** The jackpot pool of an operator's game in a currency (minor units): the seed when none has been made. */
  jackpotPool(operatorId: string, game: string, currency: string, seedMinor: bigint): Promise<bigint>;

  /** The round; rejects if there is none. Its attempts are its outbox item's while it is pending. */
  round(pk: number): Promise<RoundRow>;

  pendingRounds(sessionPk: number): Promise<RoundRow[]>;

  /** The session's latest rounds that were not refused, newest first. */
  recentRounds(sessionPk: number, limit: number): Promise<RoundRow[]>;

  /**
   * The session's round of this id if it was not refused, however far back:
   * what tells a round of the launch that is over from one of another launch.
   */
  sessionRound(sessionPk: number, roundId: string): Promise<RoundRow | undefined>;

  /** The whole round log, newest first, a page at a time. */
  listRounds(limit: number, before?: number, operators?: readonly string[] | null): Promise<RoundRow[]>;

  // -------------------------------------------------------------- payouts

  /**
   * Creates a payout and enqueues its /payout request (to its operator, the
   * payout id its ordering key, the exact body of `payoutRequest`) in one
   * database transaction. The request names the player's most recent real
   * game session at the operator, whose currency must be the payout's.
   * Idempotent by payout id, inside that transaction: the same id again
   * answers the payout as it is (`exists`, same content) or `conflict`
   * (other content), and writes nothing; when a concurrent create of the
   * same id commits first, the answer is the same as if it had come before.
   * `audit`, when given, makes the audit row for the answer (`created` or
   * `exists`), written in the same database transaction (src/staff): a payout and its audit
   * row commit together or not at all.
   */
  createPayout(asked: NewPayout, audit?: (kind: 'created' | 'exists') => AuditEntry): Promise<PayoutWrite>;

  payout(payoutId: string): Promise<PayoutRow | undefined>;

  /** Payouts, newest first, a page at a time; `before` is the cursor (`cursors` holds each payout's). */
  listPayouts(
    limit: number,
    options?: { status?: PayoutStatus; before?: number; operators?: readonly string[] | null },
  ): Promise<{ payouts: PayoutRow[]; cursors: number[] }>;

  // ------------------------------------------------------------ campaigns

  /**
   * Creates a campaign with its players, or adds players to the same
   * campaign, in one database transaction: `created`, `exists` (same
   * content) or `conflict` (the id with other content: nothing written).
   * Players are never removed. `audit`, when given, makes the audit row
   * for the answer (`created` or `exists`), written in the same database
   * transaction (src/staff): a campaign and its audit row commit together
   * or not at all; a conflict writes none.
   */
  putCampaign(campaign: CampaignRow, players: readonly string[], audit?: (kind: 'created' | 'exists') => AuditEntry): Promise<CampaignWrite>;

  campaign(campaignId: string): Promise<(CampaignRow & { players: string[] }) | undefined>;

  /** The live campaigns a player can play on this game and currency, oldest first. */
  campaignsOf(operatorId: string, playerId: string, game: string, currency: string, now: number): Promise<CampaignRow[]>;

  /** Free rounds a player has used (pending or settled) on a campaign. */
  campaignRoundsUsed(campaignId: string, operatorId: string, playerId: string): Promise<number>;

  // --------------------------------------------------------------- verify

  /**
   * Judges the provider's own records against each other (src/rounds/
   * books.ts): rounds and their outbox items, the items' bodies, jackpot
   * pools, payouts and campaigns. Read on one snapshot, in pages, while
   * writes go on; it writes nothing. Rejects only when the database could
   * not be read.
   */
  verify(): Promise<RoundBooksVerdict>;

  // ---------------------------------------------------- staff and audit (src/staff)

  /** The account and token stored under a token's hash, valid or not (access/staff.ts decides), or undefined. */
  findStaffToken(tokenHash: string): Promise<StaffTokenFound | undefined>;
  /** A staff account and its first token (its hash only), with its audit row, in one database transaction. STAFF_EXISTS when the name was ever used. */
  addStaff(command: AddStaffCommand): Promise<StaffAdded | Refusal>;
  /** Revokes an account (every token of it) or one token, with its audit row. STAFF_NOT_FOUND when neither exists. */
  revokeStaff(command: RevokeStaffCommand): Promise<StaffRevoked | Refusal>;
  listStaff(): Promise<StaffListing[]>;
  /** One audit row of a call that changed nothing (refused, failed); the table refuses UPDATE and DELETE. */
  appendAudit(entry: AuditEntry): Promise<void>;
  /** The audit log, newest first; with `operators`, only the rows of those operators. */
  listAudit(page: AuditPageRequest, operators: readonly string[] | null): Promise<AuditPage>;
}

/** A row as a driver returns it: column names to values. */
export type Row = Record<string, unknown>;

/**
 * How a backend's driver gives its columns: integers (ids, nonces, epoch
 * ms), minor units of money, and a flag. SQLite gives bigints and 0/1;
 * PostgreSQL gives int8 as text and booleans.
 */
export interface ColumnReader {
  int(value: unknown): number;
  intOrNull(value: unknown): number | null;
  money(value: unknown): bigint;
  moneyOrNull(value: unknown): bigint | null;
  booleanOrNull(value: unknown): boolean | null;
}

/** The rows of the provider's tables as the contract's types, written once for every backend. */
// eslint-disable-next-line max-lines-per-function -- one reader per table, written once for both backends
export function rowReaders(read: ColumnReader) {
  return {
    sessionOf(row: Row): GameSessionRow {
      return {
        pk: read.int(row.id),
        sessionId: row.session_id as string,
        launchId: row.launch_id as string,
        mode: row.mode as Mode,
        operatorId: row.operator_id as string,
        walletId: row.wallet_id as string | null,
        game: row.game as string,
        playerId: row.player_id as string | null,
        operatorSessionId: row.operator_session_id as string | null,
        currency: row.currency as string,
        country: row.country as string | null,
        language: row.language as string,
        balanceMinor: read.money(row.balance),
        sealedSeed: row.server_seed_sealed as string,
        serverSeedHash: row.server_seed_hash as string,
        nonce: read.int(row.nonce),
        createdAt: read.int(row.created_at),
        lastActiveAt: read.int(row.last_active_at),
      };
    },

    roundOf(row: Row): RoundRow {
      const kind = (row.kind ?? 'dice') as GameKindOfRound;
      return {
        pk: read.int(row.id),
        kind,
        reels:
          kind === 'reels'
            ? {
                rtpBp: read.int(row.reels_rtp_bp),
                jackpotBp: read.int(row.reels_jackpot_bp),
                baseWinMinor: read.money(row.base_win),
                featureWinMinor: read.money(row.feature_win),
                jackpotContributionMinor: read.money(row.jackpot_contribution),
                jackpotWinMinor: read.moneyOrNull(row.jackpot_win),
                jackpotSeedMinor: read.money(row.jackpot_seed),
                freeSpins: read.int(row.free_spins),
                freeSpinsPlayed: read.int(row.free_spins_played),
                calls: read.int(row.calls),
                callsDone: read.int(row.calls_done),
                completedAt: read.intOrNull(row.completed_at),
              }
            : null,
        roundId: row.round_id as string,
        sessionPk: read.int(row.session_pk),
        mode: row.mode as Mode,
        operatorId: row.operator_id as string,
        playerId: row.player_id as string | null,
        game: row.game as string,
        currency: row.currency as string,
        betMinor: read.money(row.bet),
        winMinor: read.money(row.win),
        betTxId: row.bet_tx_id as string | null,
        winTxId: row.win_tx_id as string | null,
        campaignId: row.campaign_id as string | null,
        campaignFinished: read.booleanOrNull(row.campaign_finished),
        chancePct: read.int(row.chance_pct),
        threshold: read.int(row.threshold),
        roll: read.int(row.roll),
        serverSeed: row.server_seed as string | null,
        sealedSeed: row.server_seed_sealed as string | null,
        serverSeedHash: row.server_seed_hash as string,
        clientSeed: row.client_seed as string,
        nonce: read.int(row.nonce),
        // A dice round's body is its outbox item's (`item_body`, joined); one written before BODY_ONCE_MIGRATION may keep its own.
        requestBody: (row.request_body as string | null) ?? (kind === 'dice' ? ((row.item_body as string | null | undefined) ?? null) : null),
        status: row.status as RoundStatus,
        refusalCode: row.refusal_code as string | null,
        refusalDetail: row.refusal_detail as string | null,
        balanceAfterMinor: read.moneyOrNull(row.balance_after),
        // The outbox item counts the attempts while the round is pending; a finished round keeps the count.
        attempts: read.int(row.status === 'pending' ? (row.item_attempts ?? row.attempts) : row.attempts),
        dispatchItemId: read.intOrNull(row.dispatch_item_id),
        createdAt: read.int(row.created_at),
        settledAt: read.intOrNull(row.settled_at),
      };
    },

    payoutOf(row: Row): PayoutRow {
      return {
        payoutId: row.payout_id as string,
        operatorId: row.operator_id as string,
        playerId: row.player_id as string,
        currency: row.currency as string,
        amountMinor: read.money(row.amount),
        campaignId: row.campaign_id as string,
        operatorSessionId: row.operator_session_id as string,
        dispatchItemId: read.int(row.dispatch_item_id),
        status: row.status as PayoutStatus,
        balanceAfterMinor: read.moneyOrNull(row.balance_after),
        refusalCode: row.refusal_code as string | null,
        refusalDetail: row.refusal_detail as string | null,
        createdAt: read.int(row.created_at),
        settledAt: read.intOrNull(row.settled_at),
        attempts: read.int(row.item_attempts ?? 0),
      };
    },

    callOf(row: Row): RoundCallRow {
      // Waiting, the body is the call's own; enqueued, its outbox item's (`item_body`, joined).
      const body = (row.request_body ?? row.item_body) as string | null | undefined;
      assert.ok(typeof body === 'string', `call ${String(row.call_index)} of round ${String(row.round_pk)} has its body, on the call or its item`);
      return {
        index: read.int(row.call_index),
        body,
        status: row.status as RoundCallRow['status'],
        dispatchItemId: read.intOrNull(row.dispatch_item_id),
        refusalCode: row.refusal_code as string | null,
        balanceAfterMinor: read.moneyOrNull(row.balance_after),
        finishedAt: read.intOrNull(row.finished_at),
      };
    },

    campaignOf(row: Row): CampaignRow {
      return {
        campaignId: row.campaign_id as string,
        operatorId: row.operator_id as string,
        game: row.game as string,
        currency: row.currency as string,
        betMinor: read.money(row.bet),
        rounds: read.int(row.rounds),
        expiresAt: read.intOrNull(row.expires_at),
        createdAt: read.int(row.created_at),
      };
    },
  };
}
