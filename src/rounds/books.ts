/**
 * What `wagerlink provider verify` concludes from the provider's own
 * records, as src/ledger/books.ts does for the wallet: each store reads the
 * facts on one snapshot (a round with its outbox item, an item with what
 * refers to it, a jackpot pool's sums, a payout, a player's use of a
 * campaign) and hands them here one at a time, so that millions of rounds
 * pass through without being held; this layer alone says which of them
 * disagree, and in what words. No I/O, no clock.
 *
 * The rules, each named by the finding's kind (docs/provider.md, Verify):
 * a real round's status is what its request's final answer says, and a
 * finished round was delivered; an outbox item is referred to by exactly
 * one round, reels call or payout, addressed to it, and its body is
 * byte for byte the request that cause makes; a jackpot pool holds its
 * seed plus the contributions of the rounds not refused less what their
 * hits took; a payout is once per id, positive, delivered, and paid or
 * refused as its item's answer says; no player used more free rounds of a
 * campaign than it gives.
 */
import { formatMinor, decimalFromNumber, toMinor, type Currencies } from '../protocol/money.js';
import { bodyText, diceRoundBody, payoutBody, reelsCallBody } from './bodies.js';
import type { CallTransaction, RoundCall } from '../game/reels-calls.js';
import type { GameKindOfRound, PayoutTerms, PlannedRound, RoundStatus } from './facts.js';

/** Findings listed per kind; the rest of a kind are counted. Enough to act on, short enough to read. */
export const FINDINGS_LISTED_MAX = 20;

/** What disagrees, as a stable code (docs/provider.md, Verify). */
export type FindingKind =
  | 'round-undelivered'
  | 'round-status'
  | 'call-status'
  | 'item-orphan'
  | 'item-misaddressed'
  | 'body-differs'
  | 'pool-mismatch'
  | 'payout-repeated'
  | 'payout-amount'
  | 'payout-undelivered'
  | 'payout-status'
  | 'campaign-overused';

export const FINDING_KINDS: readonly FindingKind[] = [
  'round-undelivered',
  'round-status',
  'call-status',
  'item-orphan',
  'item-misaddressed',
  'body-differs',
  'pool-mismatch',
  'payout-repeated',
  'payout-amount',
  'payout-undelivered',
  'payout-status',
  'campaign-overused',
];

/**
 * What is worth knowing and is no disagreement: `item-parked`, a request
 * past its horizon waiting for a person (docs/dispatch.md); `body-unchecked`,
 * a body in a currency the config no longer knows, so it cannot be rebuilt.
 */
export type NoteKind = 'item-parked' | 'body-unchecked';

export const NOTE_KINDS: readonly NoteKind[] = ['item-parked', 'body-unchecked'];

export interface Finding<K extends string = FindingKind> {
  kind: K;
  /** The ids involved: `round:<id>`, `call:<round id>#<n>`, `item:<n>`, `payout:<id>`, `pool:<operator>/<game>/<currency>`, `campaign:<id>`, `player:<id>`. */
  ids: string[];
  sentence: string;
}

/** The outbox's item statuses (src/dispatch/outbox.ts), as facts. */
export type ItemState = 'pending' | 'sent' | 'refused' | 'skipped' | 'parked' | 'resolved';
export type CallState = 'waiting' | 'pending' | 'accepted' | 'refused';

/** A real round, with its outbox item (a dice round's; a reels round's is its first call's) and its calls counted. */
export interface RealRoundFacts {
  roundId: string;
  kind: GameKindOfRound;
  status: RoundStatus;
  /** The round keeps a body of its own: one delivered before the outbox, or one written before the body was kept once. */
  ownBody: boolean;
  itemId: number | null;
  /** Null when the round names no item, or one that is not there. */
  itemStatus: ItemState | null;
  /** Reels rounds: the calls it says it has and has answered, and what its call rows hold. */
  reels: {
    calls: number;
    callsDone: number;
    callRows: number;
    /** Calls accepted or refused. */
    finalCalls: number;
    firstCall: CallState | null;
    /** Calls with neither a body of their own nor an item (the CHECK of migration 7). */
    bodiless: number;
  } | null;
}

/** What a dice round's request is made of. */
export type DiceCause = Pick<
  PlannedRound,
  'roundId' | 'operatorId' | 'playerId' | 'game' | 'currency' | 'betMinor' | 'winMinor' | 'betTxId' | 'winTxId' | 'campaignId' | 'campaignFinished'
> & { ownBody: string | null };

/** What a reels call's request is made of: its round's facts and amounts. */
export type CallCause = Omit<DiceCause, 'winMinor' | 'ownBody'> & {
  index: number;
  status: CallState;
  baseWinMinor: bigint;
  featureWinMinor: bigint;
  jackpotContributionMinor: bigint;
  jackpotWinMinor: bigint | null;
  freeSpins: number;
};

export type PayoutCause = PayoutTerms & { operatorSessionId: string; status: 'pending' | 'paid' | 'refused' };

/** An outbox item with what refers to it. */
export interface ItemFacts {
  itemId: number;
  operatorId: string;
  orderingKey: string;
  kind: string;
  path: string;
  status: ItemState;
  body: string;
  /** Rounds (dice), calls and payouts that name the item: 1 unless the records are broken. */
  referrers: number;
  cause: { dice: DiceCause } | { call: CallCause } | { payout: PayoutCause } | null;
}

/** A jackpot pool's sums over the real reels rounds of its operator, game and currency. */
export interface PoolFacts {
  operatorId: string;
  game: string;
  currency: string;
  /** The pool's amount; null when rounds name a pool there is no row of. */
  amountMinor: bigint | null;
  /** Rounds of the pool (every status) and the seed of the first, which made the pool; 0 and null when none. */
  rounds: number;
  seedMinor: bigint | null;
  /** Contributions of the rounds not refused. */
  contributionsMinor: bigint;
  /** What the hits of rounds not refused took: each the jackpot won less the seed it reset the pool to. */
  hitsMinor: bigint;
}

export interface PayoutFacts {
  payoutId: string;
  amountMinor: bigint;
  /** Rows with this payout id (1 unless the unique index was broken). */
  rows: number;
  /** Its outbox item is there. */
  itemFound: boolean;
}

/** A player's free rounds of a campaign not refused; `rounds` null when no such campaign is stored. */
export interface CampaignUseFacts {
  campaignId: string;
  operatorId: string;
  playerId: string;
  used: number;
  rounds: number | null;
}

/** The judgement: ok when nothing disagrees; notes never make it not ok. */
export interface RoundBooksVerdict {
  ok: boolean;
  /** What was read. */
  counted: { rounds: number; realRounds: number; items: number; payouts: number; pools: number; campaignUses: number };
  /** Findings per kind, every one counted. */
  totals: Partial<Record<FindingKind, number>>;
  /** At most FINDINGS_LISTED_MAX of each kind, in the order read. */
  findings: Finding[];
  noteTotals: Partial<Record<NoteKind, number>>;
  notes: Finding<NoteKind>[];
}

const SETTLING: Readonly<Record<ItemState, RoundStatus>> = {
  pending: 'pending',
  parked: 'pending',
  sent: 'settled',
  resolved: 'settled',
  refused: 'refused',
  skipped: 'refused',
};

/** What an item's state says its reels call is: waiting has no item at all. */
const CALL_OF_ITEM: Readonly<Record<ItemState, CallState>> = {
  pending: 'pending',
  parked: 'pending',
  sent: 'accepted',
  resolved: 'accepted',
  refused: 'refused',
  skipped: 'refused',
};

const PAYOUT_OF_ITEM: Readonly<Record<ItemState, PayoutCause['status']>> = {
  pending: 'pending',
  parked: 'pending',
  sent: 'paid',
  resolved: 'paid',
  refused: 'refused',
  skipped: 'refused',
};

/**
 * The judge: fed the facts one at a time in any order, it keeps counts and
 * at most FINDINGS_LISTED_MAX findings of each kind, so its memory is
 * bounded whatever the store holds; `verdict()` answers the judgement.
 */
export class RoundBooks {
  private readonly counted: RoundBooksVerdict['counted'] = { rounds: 0, realRounds: 0, items: 0, payouts: 0, pools: 0, campaignUses: 0 };
  private readonly totals: Partial<Record<FindingKind, number>> = {};
  private readonly findings: Finding[] = [];
  private readonly noteTotals: Partial<Record<NoteKind, number>> = {};
  private readonly notes: Finding<NoteKind>[] = [];

  constructor(private readonly currencies: Currencies) {}

  /** Every round the store holds, fun ones included (only counted). */
  countRounds(rounds: number): void {
    this.counted.rounds = rounds;
  }

  round(facts: RealRoundFacts): void {
    this.counted.realRounds++;
    const id = `round:${facts.roundId}`;
    if (facts.reels === null) return this.diceRound(facts, id);
    const { reels } = facts;
    const item = facts.itemId === null ? [] : [`item:${facts.itemId}`];
    if (facts.itemId === null || facts.itemStatus === null) {
      this.find('round-undelivered', [id, ...item], `reels round ${facts.roundId} has no outbox item for its bet`);
    }
    if (reels.callRows !== reels.calls) {
      this.find('round-status', [id], `reels round ${facts.roundId} says it has ${reels.calls} calls but ${reels.callRows} are stored`);
    }
    if (reels.callsDone !== reels.finalCalls) {
      this.find(
        'round-status',
        [id],
        `reels round ${facts.roundId} counts ${reels.callsDone} calls answered but ${reels.finalCalls} calls have a final answer`,
      );
    }
    const expected = reelsStatus(reels);
    if (expected !== facts.status) {
      this.find('round-status', [id], `reels round ${facts.roundId} is ${facts.status} but its calls say ${expected} (${callsText(reels)})`);
    }
    if (reels.bodiless > 0) {
      this.find('body-differs', [id], `reels round ${facts.roundId} has ${reels.bodiless} calls with neither a body nor an outbox item`);
    }
  }

  private diceRound(facts: RealRoundFacts, id: string): void {
    if (facts.itemId === null) {
      // Delivered before the outbox (provider migration 2), it keeps its own body and its final answer.
      if (facts.status !== 'pending' && facts.ownBody) return;
      const why = facts.status === 'pending' ? 'pending with no outbox item: it will never be sent' : `${facts.status} with no outbox item and no body`;
      return this.find('round-undelivered', [id], `round ${facts.roundId} is ${why}`);
    }
    const item = `item:${facts.itemId}`;
    if (facts.itemStatus === null)
      return this.find('round-undelivered', [id, item], `round ${facts.roundId} names outbox item ${facts.itemId}, which is not there`);
    const expected = SETTLING[facts.itemStatus];
    if (expected !== facts.status) {
      this.find(
        'round-status',
        [id, item],
        `round ${facts.roundId} is ${facts.status} but its outbox item ${facts.itemId} is ${facts.itemStatus}, which makes it ${expected}`,
      );
    }
  }

  item(facts: ItemFacts): void {
    this.counted.items++;
    const id = `item:${facts.itemId}`;
    if (facts.status === 'parked')
      this.note('item-parked', [id], `outbox item ${facts.itemId} (${facts.orderingKey}) is parked: it waits for a person to retry or resolve it`);
    if (facts.cause === null || facts.referrers !== 1) {
      const told = facts.referrers === 0 ? 'no round, reels call or payout refers to it' : `${facts.referrers} rounds, calls or payouts refer to it`;
      return this.find('item-orphan', [id], `outbox item ${facts.itemId} (${facts.kind} ${facts.path}, key ${facts.orderingKey}): ${told}`);
    }
    const { cause } = facts;
    if ('dice' in cause) return this.diceItem(facts, cause.dice, id);
    if ('call' in cause) return this.callItem(facts, cause.call, id);
    return this.payoutItem(facts, cause.payout, id);
  }

  private diceItem(facts: ItemFacts, round: DiceCause, id: string): void {
    const ids = [`round:${round.roundId}`, id];
    this.address(facts, ids, { operatorId: round.operatorId, key: round.roundId, kind: 'bet', path: '/transaction' });
    if (round.ownBody !== null && round.ownBody !== facts.body) {
      this.find('body-differs', ids, `round ${round.roundId} keeps a body of its own that is not its outbox item ${facts.itemId}'s`);
    }
    const decimals = this.decimalsFor(round.currency, ids, facts);
    if (decimals === undefined) return;
    const sent = parsed(facts.body);
    const rebuilt =
      sent !== undefined && typeof sent.sessionId === 'string' && round.playerId !== null && round.betTxId !== null && round.winTxId !== null
        ? diceRoundBody(round, { operatorSessionId: sent.sessionId, playerId: round.playerId, game: round.game }, decimals)
        : undefined;
    if (rebuilt !== facts.body)
      this.bodyDiffers(
        ids,
        facts,
        `round ${round.roundId}'s bet of ${formatMinor(round.betMinor, decimals)} and win of ${formatMinor(round.winMinor, decimals)}`,
      );
  }

  private callItem(facts: ItemFacts, call: CallCause, id: string): void {
    const ids = [`call:${call.roundId}#${call.index}`, id];
    this.address(facts, ids, { operatorId: call.operatorId, key: call.roundId, kind: call.index === 1 ? 'bet' : 'win', path: '/transaction' });
    const told = CALL_OF_ITEM[facts.status];
    if (call.status !== told) {
      this.find(
        'call-status',
        ids,
        `call ${call.index} of reels round ${call.roundId} is ${call.status} but its outbox item ${facts.itemId} is ${facts.status}, which makes it ${told}`,
      );
    }
    const decimals = this.decimalsFor(call.currency, ids, facts);
    if (decimals === undefined) return;
    const rebuilt = rebuiltCall(call, parsed(facts.body), decimals);
    if (rebuilt !== facts.body) this.bodyDiffers(ids, facts, `call ${call.index} of reels round ${call.roundId}`);
  }

  private payoutItem(facts: ItemFacts, payout: PayoutCause, id: string): void {
    const ids = [`payout:${payout.payoutId}`, id];
    this.address(facts, ids, { operatorId: payout.operatorId, key: payout.payoutId, kind: 'payout', path: '/payout' });
    const told = PAYOUT_OF_ITEM[facts.status];
    if (payout.status !== told) {
      this.find(
        'payout-status',
        ids,
        `payout ${payout.payoutId} is ${payout.status} but its outbox item ${facts.itemId} is ${facts.status}, which makes it ${told}`,
      );
    }
    const decimals = this.decimalsFor(payout.currency, ids, facts);
    if (decimals === undefined) return;
    if (bodyText(payoutBody(payout, payout.operatorSessionId, decimals)) !== facts.body) {
      this.bodyDiffers(ids, facts, `payout ${payout.payoutId} of ${formatMinor(payout.amountMinor, decimals)} ${payout.currency}`);
    }
  }

  private address(facts: ItemFacts, ids: string[], expected: { operatorId: string; key: string; kind: string; path: string }): void {
    const wrong = [
      facts.operatorId === expected.operatorId ? undefined : `operator ${facts.operatorId}, not ${expected.operatorId}`,
      facts.orderingKey === expected.key ? undefined : `key ${facts.orderingKey}, not ${expected.key}`,
      facts.kind === expected.kind ? undefined : `kind ${facts.kind}, not ${expected.kind}`,
      facts.path === expected.path ? undefined : `path ${facts.path}, not ${expected.path}`,
    ].filter((each) => each !== undefined);
    if (wrong.length > 0) this.find('item-misaddressed', ids, `outbox item ${facts.itemId} has ${wrong.join(', ')}`);
  }

  private decimalsFor(currency: string, ids: string[], facts: ItemFacts): number | undefined {
    const decimals = this.currencies.decimals(currency);
    if (decimals === undefined)
      this.note('body-unchecked', ids, `outbox item ${facts.itemId} is in ${currency}, a currency the config does not know: its body was not rebuilt`);
    return decimals;
  }

  private bodyDiffers(ids: string[], facts: ItemFacts, what: string): void {
    this.find('body-differs', ids, `outbox item ${facts.itemId}'s body is not the request of ${what}`);
  }

  pool(facts: PoolFacts): void {
    this.counted.pools++;
    const name = `${facts.operatorId}/${facts.game}/${facts.currency}`;
    const ids = [`pool:${name}`];
    if (facts.amountMinor === null) return this.find('pool-mismatch', ids, `${facts.rounds} real reels rounds name jackpot pool ${name}, which is not there`);
    if (facts.seedMinor === null) return this.find('pool-mismatch', ids, `jackpot pool ${name} holds ${facts.amountMinor} but no real reels round made it`);
    const expected = facts.seedMinor + facts.contributionsMinor - facts.hitsMinor;
    if (expected !== facts.amountMinor) {
      this.find(
        'pool-mismatch',
        ids,
        `jackpot pool ${name} holds ${facts.amountMinor} but its seed ${facts.seedMinor} + contributions ${facts.contributionsMinor} - hits ${facts.hitsMinor} = ${expected} (minor units)`,
      );
    }
  }

  payout(facts: PayoutFacts): void {
    this.counted.payouts++;
    const ids = [`payout:${facts.payoutId}`];
    if (facts.rows > 1) this.find('payout-repeated', ids, `payout ${facts.payoutId} is stored ${facts.rows} times: it could be paid more than once`);
    if (facts.amountMinor <= 0n) this.find('payout-amount', ids, `payout ${facts.payoutId} is of ${facts.amountMinor} minor units, not a positive amount`);
    if (!facts.itemFound) this.find('payout-undelivered', ids, `payout ${facts.payoutId} has no outbox item: it will never be sent`);
  }

  campaignUse(facts: CampaignUseFacts): void {
    this.counted.campaignUses++;
    const ids = [`campaign:${facts.campaignId}`, `player:${facts.playerId}`];
    if (facts.rounds === null) {
      return this.find(
        'campaign-overused',
        ids,
        `player ${facts.playerId} at ${facts.operatorId} played ${facts.used} free rounds of campaign ${facts.campaignId}, which is not stored`,
      );
    }
    if (facts.used > facts.rounds) {
      this.find(
        'campaign-overused',
        ids,
        `player ${facts.playerId} at ${facts.operatorId} played ${facts.used} free rounds of campaign ${facts.campaignId}, which gives ${facts.rounds}`,
      );
    }
  }

  verdict(): RoundBooksVerdict {
    return {
      ok: this.findings.length === 0,
      counted: { ...this.counted },
      totals: { ...this.totals },
      findings: [...this.findings],
      noteTotals: { ...this.noteTotals },
      notes: [...this.notes],
    };
  }

  private find(kind: FindingKind, ids: string[], sentence: string): void {
    const total = (this.totals[kind] ?? 0) + 1;
    this.totals[kind] = total;
    if (total <= FINDINGS_LISTED_MAX) this.findings.push({ kind, ids, sentence });
  }

  private note(kind: NoteKind, ids: string[], sentence: string): void {
    const total = (this.noteTotals[kind] ?? 0) + 1;
    this.noteTotals[kind] = total;
    if (total <= FINDINGS_LISTED_MAX) this.notes.push({ kind, ids, sentence });
  }
}

/** What a reels round's calls make it: refused by a refused bet, settled once every call is answered, else pending. */
function reelsStatus(reels: NonNullable<RealRoundFacts['reels']>): RoundStatus {
  if (reels.firstCall === 'refused') return 'refused';
  return reels.calls > 0 && reels.finalCalls === reels.calls ? 'settled' : 'pending';
}

function callsText(reels: NonNullable<RealRoundFacts['reels']>): string {
  return `${reels.finalCalls} of ${reels.calls} answered, the bet's ${reels.firstCall ?? 'missing'}`;
}

type Json = Record<string, unknown>;

function parsed(body: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A reels call's request rebuilt from its round's facts; only what the
 * round does not keep is taken from the body as sent: the operator's
 * session, the jackpot win's transaction id and the free spins' wins, each
 * of which the round's sums still hold to (feature wins sum to the round's
 * feature win). Undefined when the body lacks them.
 */
function rebuiltCall(call: CallCause, sent: Json | undefined, decimals: number): string | undefined {
  if (sent === undefined || typeof sent.sessionId !== 'string' || call.playerId === null || call.betTxId === null || call.winTxId === null) return undefined;
  const transactions = Array.isArray(sent.transactions) ? (sent.transactions as Json[]) : [];
  const campaign = (finished: boolean): Pick<RoundCall, 'campaign'> =>
    call.campaignId === null ? {} : { campaign: { id: call.campaignId, type: 'freeBets', finished } };
  let rebuilt: RoundCall | undefined;
  if (call.index === 1) {
    rebuilt = {
      transactions: [{ id: call.betTxId, type: 'bet', amountMinor: call.betMinor, jpAmountMinor: call.jackpotContributionMinor }],
      finished: false,
      ...campaign(call.campaignFinished === true),
    };
  } else if (call.index === 2) {
    const wins: CallTransaction[] = [{ id: call.winTxId, type: 'win', amountMinor: call.baseWinMinor }];
    const jackpotId = transactions[1]?.id;
    if (call.jackpotWinMinor !== null) {
      if (typeof jackpotId !== 'string') return undefined;
      wins.push({ id: jackpotId, type: 'win', amountMinor: call.jackpotWinMinor, jpAmountMinor: call.jackpotWinMinor });
    }
    rebuilt = { transactions: wins, finished: call.freeSpins === 0, ...campaign(false) };
  } else {
    const wins = transactions.map((tx) => featureWin(tx, decimals));
    if (wins.length === 0 || wins.some((win) => win === undefined)) return undefined;
    const sum = (wins as CallTransaction[]).reduce((total, win) => total + win.amountMinor, 0n);
    if (sum !== call.featureWinMinor) return undefined;
    rebuilt = { transactions: wins as CallTransaction[], finished: true, ...campaign(false) };
  }
  const session = { operatorSessionId: sent.sessionId, playerId: call.playerId, game: call.game };
  return reelsCallBody(rebuilt, call.roundId, session, decimals);
}

/** A free spin's win as the body states it, in minor units; undefined if it is no plain win of an exact amount. */
function featureWin(tx: Json, decimals: number): CallTransaction | undefined {
  if (typeof tx.id !== 'string' || tx.type !== 'win' || typeof tx.amount !== 'number' || 'jpAmount' in tx) return undefined;
  const decimal = decimalFromNumber(tx.amount);
  const minor = decimal === undefined ? undefined : toMinor(decimal, decimals);
  return minor === undefined ? undefined : { id: tx.id, type: 'win', amountMinor: minor };
}
