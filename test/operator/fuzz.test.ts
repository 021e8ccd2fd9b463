/**
 * Proves, with fast-check, that no validly signed body can break the wallet:
 * thousands of /transaction and /payout requests, valid ones and randomly
 * mutated ones (missing members, wrong types, hostile numbers, duplicated
 * ids, nested junk, `__proto__` keys, oversized arrays and bodies, and what
 * I-JSON refuses: a member name twice, unpaired surrogates, U+0000, numbers
 * out of a double's range), never
 * answer 500 or an unknown status, every refusal is problem+json with a
 * registered code, and a simple model of the wallet agrees with the server
 * after every request: a balance moves only on 200, by exactly the new
 * transactions' amounts, and a seen id is only ever accepted with the content
 * it was first booked with. A body that breaks I-JSON is never booked,
 * whatever JSON.parse would make of it, and -0 is never an amount. The books
 * verify at the end.
 *
 * It runs on every backend (SQLite, and PostgreSQL with DATABASE_URL), each
 * on a database of its own.
 *
 * Runs are stateful (they share one database), so shrinking is off: a failure
 * reports the first failing request and the seed. FUZZ_SEED and FUZZ_RUNS
 * replay or widen a run.
 */
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ERRORS, type ErrorCode } from '../../src/protocol/errors.js';
import { admin, makeOperator, OPERATOR_BACKENDS, playerWithSession, walletHeaders, type Operator, type OperatorBackendName } from '../helpers.js';

/**
 * Requests per backend. PostgreSQL gets the same default as SQLite: 4,000
 * runs took 9.8 s there against 6.3 s on SQLite (2-core machine), not enough
 * of a difference to prove less on it.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_500);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
/** The books are also verified every this many requests, not only at the end. */
const VERIFY_EVERY_RUNS = 250;

/** What /transaction and /payout may refuse with; anything else (500 and 503 included) is a bug here. */
const WALLET_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'INVALID_REQUEST',
  'INSUFFICIENT_FUNDS',
  'SESSION_EXPIRED',
  'SESSION_MISMATCH',
  'PLAYER_BLOCKED',
  'SESSION_NOT_FOUND',
  'DUPLICATE_CONFLICT',
  'ROUND_CLOSED',
  'ROUND_MISMATCH',
  'CAMPAIGN_FINISHED',
  'PAYLOAD_TOO_LARGE',
]);

// ------------------------------------------------------------------- model

interface ModelPlayer {
  playerId: string;
  sessionId: string;
  game: string;
  decimals: number;
  /** Minor units. */
  balance: bigint;
}

/** What the model holds under an id once a 200 booked it. */
interface Booking {
  kind: 'bet' | 'win' | 'payout';
  playerId: string;
  /** round.id of a transaction, campaign.id of a payout; lower case. */
  ref: string;
  amount: bigint;
  jpAmount: bigint;
}

/** An exact decimal text of the wire ("12.5") as minor units; fails on anything else. */
function minorFromText(text: string, decimals: number): bigint {
  assert.match(text, /^(0|[1-9]\d*)(\.\d+)?$/, `not a plain non-negative decimal: ${text}`);
  const [whole = '', fraction = ''] = text.split('.');
  assert.ok(fraction.length <= decimals, `${text} has more than ${decimals} decimals`);
  return BigInt(whole + fraction.padEnd(decimals, '0'));
}

/** An amount the server accepted, as minor units: it must have been a valid amount of the currency. */
function acceptedMinor(value: unknown, decimals: number, field: string): bigint {
  assert.equal(typeof value, 'number', `${field} was accepted but is not a number`);
  const amount = value as number;
  assert.ok(Number.isFinite(amount) && amount >= 0 && amount <= 1e12, `${field} ${amount} was accepted but is out of range`);
  // -0 >= 0 holds, but an amount is never negative (docs/protocol.md §4): -0 is refused, not booked as 0.
  assert.ok(!Object.is(amount, -0), `${field} -0 was accepted`);
  const fixed = amount.toFixed(decimals);
  assert.ok(Number(fixed) === amount, `${field} ${amount} was accepted with more than ${decimals} decimals`);
  return BigInt(fixed.replace('.', ''));
}

function formatMinorText(minor: bigint, decimals: number): string {
  const digits = minor.toString().padStart(decimals + 1, '0');
  if (decimals === 0) return digits;
  const fraction = digits.slice(-decimals).replace(/0+$/, '');
  const whole = digits.slice(0, -decimals);
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

// ---------------------------------------------------------------- mutation

type Json = unknown;
type Container = Record<string, Json> | Json[];

/** Sets a member without ever invoking a setter: `__proto__` stays plain data. */
function put(container: Container, key: string | number, value: Json): void {
  if (Array.isArray(container)) container[Number(key)] = value;
  else Object.defineProperty(container, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Every [container, key] of a JSON value, parents before children. */
function membersOf(value: Json): [Container, string | number][] {
  const found: [Container, string | number][] = [];
  const walk = (node: Json) => {
    if (Array.isArray(node)) {
      node.forEach((child, index) => {
        found.push([node, index]);
        walk(child);
      });
    } else if (node !== null && typeof node === 'object') {
      for (const key of Object.keys(node)) {
        found.push([node as Record<string, Json>, key]);
        walk((node as Record<string, Json>)[key]);
      }
    }
  };
  walk(value);
  return found;
}

function containersOf(value: Json): Container[] {
  const found: Container[] = [];
  const walk = (node: Json) => {
    if (node === null || typeof node !== 'object') return;
    found.push(node as Container);
    for (const child of Object.values(node)) walk(child);
  };
  walk(value);
  return found;
}

type Mutation =
  | { kind: 'drop'; pick: number }
  | { kind: 'set'; pick: number; value: Json }
  | { kind: 'add'; pick: number; key: string; value: Json }
  | { kind: 'rawNumber'; pick: number; token: string }
  | { kind: 'duplicateTransaction'; pick: number }
  | { kind: 'manyTransactions'; count: number; template: Json }
  | { kind: 'iJsonValue'; pick: number; token: string }
  | { kind: 'iJsonName'; pick: number; token: string; value: Json }
  | { kind: 'duplicateName'; pick: number; value: Json };

/** Mutations that break I-JSON (docs/protocol.md §1): applied after the others, so that none of those undoes them. */
const I_JSON_KINDS: ReadonlySet<Mutation['kind']> = new Set(['iJsonValue', 'iJsonName', 'duplicateName']);

/** Numbers in the body text as the server receives them, beyond what JSON.stringify writes. */
const RAW_NUMBER_TOKENS = [
  '-0',
  '-0.0',
  '-0e2',
  '0e-400',
  '0.0',
  '1e2',
  '1.5e1',
  '1.10',
  '0.30000000000000004',
  '9007199254740993',
  '123456789012345678',
  '1e12',
  '1000000000000',
  '1000000000000.01',
  '999999999999.99',
  '0.001',
  '0.005',
  '-1',
  '-0.01',
  '100.000000000000000000001',
  '1e-7',
  '5e-324',
  '1.7976931348623157e308',
] as const;

/** Values that break I-JSON, as body text: JSON.parse reads the numbers as Infinity or 0, the strings as text no store keeps. */
const I_JSON_VALUE_TOKENS = [
  '1e400',
  '-1e400',
  '1E-400',
  '1e-400',
  '-1e-400',
  '2e-324',
  '"\\ud800"',
  '"a\\udfff"',
  '"\\udc00\\ud800"',
  '"\\u0000"',
  '"x\\u0000y"',
] as const;
/** Member names that break I-JSON, as body text. */
const I_JSON_NAME_TOKENS = ['"\\ud800"', '"amount\\udbff"', '"\\u0000"', '"type\\u0000"'] as const;

const SPECIAL_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'ok', 'code', 'balance', 'then'] as const;

/**
 * Applies a mutation. Tokens that JSON.stringify cannot write go in as
 * marker strings, swapped for their text in bodyText; the markers of
 * I-JSON breaches are also listed in `breaches`.
 */
// eslint-disable-next-line max-lines-per-function -- one switch, a short branch per kind of mutation
function applyMutation(body: Record<string, Json>, mutation: Mutation, markers: Map<string, string>, breaches: Set<string>): void {
  switch (mutation.kind) {
    case 'drop': {
      const members = membersOf(body);
      if (members.length === 0) return;
      const [container, key] = members[mutation.pick % members.length]!;
      if (Array.isArray(container)) container.splice(Number(key), 1);
      else delete container[key as string];
      return;
    }
    case 'set': {
      const members = membersOf(body);
      if (members.length === 0) return;
      const [container, key] = members[mutation.pick % members.length]!;
      put(container, key, mutation.value);
      return;
    }
    case 'add': {
      const containers = containersOf(body);
      const container = containers[mutation.pick % containers.length]!;
      if (Array.isArray(container)) container.splice(mutation.pick % (container.length + 1), 0, mutation.value);
      else put(container, mutation.key, mutation.value);
      return;
    }
    case 'rawNumber': {
      // A marker string stands in for the token and is swapped for it in the text.
      const members = membersOf(body);
      if (members.length === 0) return;
      const [container, key] = members[mutation.pick % members.length]!;
      const marker = `@raw-number-${markers.size}@`;
      markers.set(marker, mutation.token);
      put(container, key, marker);
      return;
    }
    case 'duplicateTransaction': {
      const list = body.transactions;
      if (!Array.isArray(list) || list.length === 0) return;
      list.push(JSON.parse(JSON.stringify(list[mutation.pick % list.length])));
      return;
    }
    case 'manyTransactions':
      body.transactions = Array.from({ length: mutation.count }, () => JSON.parse(JSON.stringify(mutation.template)));
      return;
    case 'iJsonValue': {
      const members = membersOf(body);
      if (members.length === 0) return;
      const [container, key] = members[mutation.pick % members.length]!;
      const marker = `@i-json-value-${markers.size}@`;
      markers.set(marker, mutation.token);
      breaches.add(marker);
      put(container, key, marker);
      return;
    }
    case 'iJsonName': {
      const objects = containersOf(body).filter((container) => !Array.isArray(container));
      const container = objects[mutation.pick % objects.length]!;
      const marker = `@i-json-name-${markers.size}@`;
      markers.set(marker, mutation.token);
      breaches.add(marker);
      put(container, marker, mutation.value);
      return;
    }
    case 'duplicateName': {
      // A second member under a name the object has: JSON.parse would keep only the last.
      const objects = containersOf(body).filter((container) => !Array.isArray(container) && Object.keys(container).length > 0);
      if (objects.length === 0) return;
      const container = objects[mutation.pick % objects.length]!;
      const names = Object.keys(container);
      const marker = `@duplicate-name-${markers.size}@`;
      markers.set(marker, JSON.stringify(names[mutation.pick % names.length]));
      breaches.add(marker);
      put(container, marker, mutation.value);
      return;
    }
  }
}

/** The body text sent: the mutated object, with raw tokens swapped in; `breached` when an I-JSON breach is in it. */
function bodyText(body: Record<string, Json>, markers: Map<string, string>, breaches: ReadonlySet<string>): { text: string; breached: boolean } {
  let text = JSON.stringify(body);
  let breached = false;
  for (const [marker, token] of markers) {
    const quoted = JSON.stringify(marker);
    if (breaches.has(marker) && text.includes(quoted)) breached = true;
    text = text.replaceAll(quoted, token);
  }
  return { text, breached };
}

/** Exchanges shown with a failure, and how much of each body. */
const RECENT_KEPT = 6;
const SHOWN_CHARS_MAX = 1_500;

function clip(text: string): string {
  return text.length > SHOWN_CHARS_MAX ? `${text.slice(0, SHOWN_CHARS_MAX)}... (${text.length} chars)` : text;
}

/** How an earlier request is changed before it goes again. */
const TWEAKS = ['exact', 'exact', 'round', 'amount', 'type', 'jpAmount', 'campaign', 'player', 'game', 'session'] as const;
type Tweak = (typeof TWEAKS)[number];

// -------------------------------------------------------------------- test

// eslint-disable-next-line max-lines-per-function -- the fuzz run's model, requests and checks share the run's state
async function fuzzTheWallet(backend: OperatorBackendName, numRuns: number): Promise<void> {
  const op: Operator = await makeOperator({ backend });
  try {
    const eur = await playerWithSession(op.app, { playerId: 'fuzz-eur', currency: 'EUR', balance: 1_000, game: 'dice' });
    const jpy = await playerWithSession(op.app, { playerId: 'fuzz-jpy', currency: 'JPY', balance: 50_000, game: 'slots' });
    const players: ModelPlayer[] = [
      { ...eur, decimals: 2, balance: 100_000n },
      { ...jpy, decimals: 0, balance: 50_000n },
    ];
    const bySession = new Map(players.map((p) => [p.sessionId.toLowerCase(), p]));
    const booked = new Map<string, Booking>();
    const stats = { ok: 0, okUnmutated: 0, unmutated: 0, replays: 0, breaches: 0, codes: new Map<string, number>() };

    // Small pools make ids, rounds and campaigns collide often: replays, conflicts, closed rounds.
    const idPool = Array.from({ length: 12 }, () => randomUUID());
    const roundPool = Array.from({ length: 8 }, () => randomUUID());
    const campaignPool = Array.from({ length: 3 }, () => randomUUID());
    const pooled = (pool: string[], freshWeight: number) =>
      fc.oneof(
        { weight: freshWeight, arbitrary: fc.uuid() },
        { weight: 3, arbitrary: fc.constantFrom(...pool) },
        { weight: 1, arbitrary: fc.constantFrom(...pool).map((id) => id.toUpperCase()) },
      );
    // A request holds up to five ids: most are fresh, or few requests would be free of conflicts.
    const idArb = pooled(idPool, 16);
    const roundIdArb = pooled(roundPool, 6);
    const campaignIdArb = pooled(campaignPool, 6);

    /** Cents (or yen): mostly small, sometimes large. */
    const unitsArb = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 30_000 }) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 10_000_000 }) });
    const amountOf = (units: number, decimals: number) => (decimals === 0 ? units : units / 100);

    const keyArb = fc.oneof(fc.constantFrom(...SPECIAL_KEYS), fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 8 }));
    const hostileNumberArb = fc.constantFrom(
      -1,
      -0.01,
      0,
      0.001,
      0.005,
      0.1 + 0.2,
      1 / 3,
      1e12,
      1e12 + 0.01,
      1e13,
      1e21,
      1e300,
      -1e300,
      Number.MAX_SAFE_INTEGER,
      2 ** 63,
      Number.MIN_VALUE,
      12.345,
      99.999,
    );
    const uuidLikeArb = fc.oneof(
      fc.uuid(),
      fc.uuid().map((id) => id.toUpperCase()),
      fc.uuid().map((id) => id.replaceAll('-', '')),
      fc.uuid().map((id) => `{${id}}`),
      fc.uuid().map((id) => ` ${id}`),
      fc.constantFrom(...idPool, ...roundPool, ...campaignPool, ...players.map((p) => p.sessionId)),
    );
    const nearMissArb = fc.constantFrom(
      'bet',
      'win',
      'payout',
      'deposit',
      'withdrawal',
      'tournament',
      'freeBets',
      'BET',
      ' bet',
      '',
      'dice',
      'slots',
      'unknown-game',
      'fuzz-eur',
      'fuzz-jpy',
      'nobody',
      '10',
      'true',
      'null',
    );
    const junkArb: fc.Arbitrary<Json> = fc.oneof(
      { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
      { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
      { weight: 2, arbitrary: fc.double() },
      { weight: 2, arbitrary: fc.integer({ min: -1e15, max: 1e15 }) },
      { weight: 3, arbitrary: hostileNumberArb },
      { weight: 3, arbitrary: uuidLikeArb },
      { weight: 3, arbitrary: nearMissArb },
      { weight: 1, arbitrary: fc.boolean() },
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 30 }) },
      { weight: 1, arbitrary: fc.dictionary(keyArb, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }) },
      { weight: 1, arbitrary: fc.integer({ min: 16_000, max: 300_000 }).map((n) => 'x'.repeat(n)) },
    );

    const transactionArb = (decimals: number) =>
      fc
        .record({
          id: idArb,
          // Bets outnumber wins so that balances drift down and funds run out now and then.
          type: fc.oneof({ weight: 3, arbitrary: fc.constant('bet') }, { weight: 1, arbitrary: fc.constant('win') }),
          units: unitsArb,
          jpShare: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
        })
        .map(({ id, type, units, jpShare }) => ({
          id,
          type,
          amount: amountOf(units, decimals),
          ...(jpShare === undefined ? {} : { jpAmount: amountOf(Math.floor(units * jpShare), decimals) }),
        }));

    const transactionRequestArb = fc.integer({ min: 0, max: players.length - 1 }).chain((index) => {
      const p = players[index]!;
      return fc.record({
        path: fc.constant('/transaction'),
        body: fc
          .record({
            transactions: fc.array(transactionArb(p.decimals), { minLength: 1, maxLength: 5 }),
            round: fc.record({ id: roundIdArb, finished: fc.boolean() }),
            // One request in five is a free-bets round.
            campaign: fc.oneof(
              { weight: 4, arbitrary: fc.constant(undefined) },
              {
                weight: 1,
                arbitrary: fc.record({ id: campaignIdArb, type: fc.constant('freeBets'), finished: fc.boolean() }, { requiredKeys: ['type'] }),
              },
            ),
            regulatory: fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
          })
          .map(({ transactions, round, campaign, regulatory }) => ({
            sessionId: p.sessionId,
            playerId: p.playerId,
            game: p.game,
            transactions,
            round,
            ...(campaign === undefined ? {} : { campaign }),
            ...(regulatory === undefined ? {} : { regulatory }),
          })),
      });
    });

    const payoutRequestArb = fc.integer({ min: 0, max: players.length - 1 }).chain((index) => {
      const p = players[index]!;
      return fc.record({
        path: fc.constant('/payout'),
        body: fc.record({ payoutId: idArb, units: unitsArb, campaignId: campaignIdArb }).map(({ payoutId, units, campaignId }) => ({
          sessionId: p.sessionId,
          payoutId,
          amount: amountOf(units, p.decimals),
          campaign: { id: campaignId, type: 'tournament' },
        })),
      });
    });

    const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('drop' as const), pick: fc.nat() }) },
      { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), pick: fc.nat(), value: junkArb }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('add' as const), pick: fc.nat(), key: keyArb, value: junkArb }) },
      {
        weight: 3,
        arbitrary: fc.record({ kind: fc.constant('rawNumber' as const), pick: fc.nat(), token: fc.constantFrom(...RAW_NUMBER_TOKENS) }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('duplicateTransaction' as const), pick: fc.nat() }) },
      {
        weight: 2,
        arbitrary: fc.record({ kind: fc.constant('iJsonValue' as const), pick: fc.nat(), token: fc.constantFrom(...I_JSON_VALUE_TOKENS) }),
      },
      {
        weight: 1,
        arbitrary: fc.record({ kind: fc.constant('iJsonName' as const), pick: fc.nat(), token: fc.constantFrom(...I_JSON_NAME_TOKENS), value: junkArb }),
      },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('duplicateName' as const),
          pick: fc.nat(),
          // Mostly a value the schema takes, so that only the duplicate stands between the body and a booking.
          value: fc.oneof({ weight: 3, arbitrary: unitsArb.map((units) => units / 100) }, { weight: 1, arbitrary: junkArb }),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('manyTransactions' as const),
          count: fc.integer({ min: 0, max: 140 }),
          template: transactionArb(2).map((t) => ({ ...t, id: undefined as unknown })),
        }),
      },
    );

    const caseArb = fc.record({
      request: fc.oneof({ weight: 3, arbitrary: transactionRequestArb }, { weight: 1, arbitrary: payoutRequestArb }),
      mutations: fc.oneof(
        { weight: 1, arbitrary: fc.constant([] as Mutation[]) },
        { weight: 3, arbitrary: fc.array(mutationArb, { minLength: 1, maxLength: 4 }) },
      ),
      // Now and then the first bet stakes the whole balance, give or take a minor unit: the edge of INSUFFICIENT_FUNDS.
      allIn: fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.integer({ min: -2, max: 2 }) }),
      // Now and then the exact bytes of an earlier request go again, as a provider's retry would.
      // Or they go again with one member of the content changed: the same ids must then conflict.
      replay: fc.oneof(
        { weight: 6, arbitrary: fc.constant(undefined) },
        { weight: 2, arbitrary: fc.record({ pick: fc.nat(), tweak: fc.constantFrom(...TWEAKS) }) },
      ),
    });
    /** Earlier requests that were answered 200, to send again; bounded. */
    const history: { path: string; text: string }[] = [];
    const HISTORY_MAX = 64;

    async function storedBalanceText(playerId: string): Promise<string> {
      const answer = await admin(op.app, 'GET', `/admin/players/${playerId}`);
      assert.equal(answer.status, 200, answer.raw);
      const match = /"balance":([^,}]+)/.exec(answer.raw);
      assert.ok(match, answer.raw);
      return match[1]!;
    }

    /** The model's view of a 200: checks each id against what it was booked with, returns the new bookings and the delta. */
    function expectedEffect(path: string, sent: Record<string, unknown>, p: ModelPlayer): { delta: bigint; bookings: [string, Booking][] } {
      const bookings: [string, Booking][] = [];
      let delta = 0n;
      if (path === '/payout') {
        const id = String(sent.payoutId).toLowerCase();
        const campaign = sent.campaign as { id: string; type: string };
        assert.equal(campaign.type, 'tournament');
        const amount = acceptedMinor(sent.amount, p.decimals, 'amount');
        assert.ok(amount > 0n, 'a payout of 0 was accepted');
        const booking: Booking = { kind: 'payout', playerId: p.playerId, ref: campaign.id.toLowerCase(), amount, jpAmount: 0n };
        const before = booked.get(id);
        if (before) assert.deepEqual(before, booking, `payout ${id} was accepted again with other content`);
        else {
          bookings.push([id, booking]);
          delta = amount;
        }
        return { delta, bookings };
      }
      assert.equal(sent.playerId, p.playerId, "a transaction for another player than the session's was accepted");
      assert.equal(sent.game, p.game, "a transaction for another game than the session's was accepted");
      const list = sent.transactions as { id: string; type: 'bet' | 'win'; amount: unknown; jpAmount?: unknown }[];
      assert.ok(Array.isArray(list) && list.length >= 1 && list.length <= 100, 'a transactions list out of 1..100 was accepted');
      const ids = list.map((t) => t.id.toLowerCase());
      assert.equal(new Set(ids).size, ids.length, 'a request with a repeated transaction id was accepted');
      const round = (sent.round as { id: string }).id.toLowerCase();
      const freeBets = (sent.campaign as { type?: string } | undefined)?.type === 'freeBets';
      list.forEach((t, index) => {
        assert.ok(t.type === 'bet' || t.type === 'win', `type ${String(t.type)} was accepted`);
        const amount = acceptedMinor(t.amount, p.decimals, `transactions[${index}].amount`);
        const jpAmount = t.jpAmount === undefined ? 0n : acceptedMinor(t.jpAmount, p.decimals, `transactions[${index}].jpAmount`);
        assert.ok(jpAmount <= amount, 'a jpAmount over its amount was accepted');
        const booking: Booking = { kind: t.type, playerId: p.playerId, ref: round, amount, jpAmount };
        const before = booked.get(ids[index]!);
        if (before) {
          assert.deepEqual(before, booking, `transaction ${ids[index]} was accepted again with other content`);
          return;
        }
        bookings.push([ids[index]!, booking]);
        if (t.type === 'win') delta += amount;
        else if (!freeBets) delta -= amount;
      });
      // Every transaction of a 200 is fresh or an exact replay; a request of fresh ones moves the balance at once.
      return { delta, bookings };
    }

    let runs = 0;
    /** The last few exchanges, newest first, shown with a failure. */
    const recent: string[] = [];
    /** Sets the first transaction, if a bet, to the session player's whole balance plus `offset` minor units. */
    function stakeAll(body: Record<string, Json>, offset: number): void {
      const p = bySession.get(String(body.sessionId).toLowerCase());
      const first = (body.transactions as { type: string; amount: number }[] | undefined)?.[0];
      if (!p || first?.type !== 'bet') return;
      const minor = p.balance + BigInt(offset);
      if (minor < 0n || minor > 10n ** 14n) return;
      first.amount = Number(formatMinorText(minor, p.decimals));
    }

    /** An earlier body with one member of its content changed (or none, for `exact`). */
    function tweaked(text: string, tweak: Tweak): string {
      if (tweak === 'exact') return text;
      let body: Record<string, Json>;
      try {
        body = JSON.parse(text) as Record<string, Json>;
      } catch {
        return text;
      }
      if (body === null || typeof body !== 'object' || Array.isArray(body)) return text;
      const p = bySession.get(String(body.sessionId).toLowerCase());
      const unit = p?.decimals === 0 ? 1 : 0.01;
      const first = Array.isArray(body.transactions) ? (body.transactions[0] as Record<string, Json> | undefined) : undefined;
      const isObject = (value: Json): value is Record<string, Json> => value !== null && typeof value === 'object' && !Array.isArray(value);
      switch (tweak) {
        case 'round':
          if (isObject(body.round)) body.round.id = randomUUID();
          break;
        case 'amount':
          if (isObject(first) && typeof first.amount === 'number') first.amount = Number((first.amount + unit).toFixed(p?.decimals ?? 2));
          if (typeof body.amount === 'number') body.amount = Number((body.amount + unit).toFixed(p?.decimals ?? 2));
          break;
        case 'type':
          if (isObject(first)) first.type = first.type === 'bet' ? 'win' : 'bet';
          break;
        case 'jpAmount':
          if (isObject(first)) {
            if (typeof first.jpAmount === 'number' && first.jpAmount > 0) delete first.jpAmount;
            else first.jpAmount = first.amount;
          }
          break;
        case 'campaign':
          if (isObject(body.campaign)) body.campaign.id = randomUUID();
          break;
        case 'game':
          // Another fixture's game for this session.
          if ('game' in body) body.game = players.find((each) => each !== p)?.game ?? 'unknown-game';
          break;
        case 'session':
          // Another fixture's session, with this body's player and game.
          body.sessionId = players.find((each) => each !== p)?.sessionId ?? randomUUID();
          break;
        case 'player': {
          // The same ids and the same minor units under the other fixture's session, player and game.
          const other = players.find((each) => each !== p);
          if (!p || !other) break;
          const rescale = (amount: Json) =>
            typeof amount === 'number' ? Number((amount * 10 ** (p.decimals - other.decimals)).toFixed(other.decimals)) : amount;
          body.sessionId = other.sessionId;
          if ('playerId' in body) body.playerId = other.playerId;
          if ('game' in body) body.game = other.game;
          if ('amount' in body) body.amount = rescale(body.amount);
          if (Array.isArray(body.transactions)) {
            for (const each of body.transactions) {
              if (!isObject(each)) continue;
              if ('amount' in each) each.amount = rescale(each.amount);
              if ('jpAmount' in each) each.jpAmount = rescale(each.jpAmount);
            }
          }
          break;
        }
      }
      return JSON.stringify(body);
    }

    // eslint-disable-next-line max-lines-per-function -- the property: one request, sent and checked against the model, step by step
    const property = fc.asyncProperty(caseArb, async ({ request, mutations, replay, allIn }) => {
      runs++;
      let path: string = request.path;
      let text: string;
      let unmutated = false;
      let breached = false;
      if (replay !== undefined && history.length > 0) {
        ({ path, text } = history[replay.pick % history.length]!);
        text = tweaked(text, replay.tweak);
        stats.replays++;
      } else {
        const body = JSON.parse(JSON.stringify(request.body)) as Record<string, Json>;
        if (allIn !== undefined && path === '/transaction') stakeAll(body, allIn);
        const markers = new Map<string, string>();
        const breaches = new Set<string>();
        const ordered = [...mutations.filter((m) => !I_JSON_KINDS.has(m.kind)), ...mutations.filter((m) => I_JSON_KINDS.has(m.kind))];
        for (const mutation of ordered) applyMutation(body, mutation, markers, breaches);
        ({ text, breached } = bodyText(body, markers, breaches));
        if (breached) stats.breaches++;
        unmutated = mutations.length === 0;
        if (unmutated) stats.unmutated++;
      }

      const response = await op.app.inject({ method: 'POST', url: path, payload: text, headers: walletHeaders(text) });
      const status = response.statusCode;
      const contentType = String(response.headers['content-type'] ?? '');
      const exchange = `${path} ${clip(text)}\n-> ${status} ${clip(response.body)}`;
      const context = `${exchange}\nafter:\n${recent.join('\n')}`;
      recent.unshift(exchange);
      if (recent.length > RECENT_KEPT) recent.pop();

      // What the server parsed: the model reads the same value (hostile tokens included).
      let sent: Record<string, unknown> | undefined;
      try {
        sent = JSON.parse(text) as Record<string, unknown>;
      } catch {
        sent = undefined;
      }
      const sessionPlayer = typeof sent?.sessionId === 'string' ? bySession.get(sent.sessionId.toLowerCase()) : undefined;

      if (status === 200) {
        stats.ok++;
        if (unmutated) stats.okUnmutated++;
        assert.match(contentType, /^application\/json/, context);
        const match = /^\{"balance":([^,}]+)\}$/.exec(response.body);
        assert.ok(match, `a 200 body is not {"balance":n}: ${context}`);
        assert.ok(sent && sessionPlayer, `a 200 for no known session: ${context}`);
        assert.ok(!breached, `a body that breaks I-JSON was booked: ${context}`);
        let effect: ReturnType<typeof expectedEffect>;
        try {
          effect = expectedEffect(path, sent, sessionPlayer);
        } catch (error) {
          throw new Error(`${(error as Error).message}\n${context}`, { cause: error });
        }
        const { delta, bookings } = effect;
        const expected = sessionPlayer.balance + delta;
        assert.ok(expected >= 0n, `the model went negative: ${context}`);
        assert.equal(match[1], formatMinorText(expected, sessionPlayer.decimals), `balance after a 200: ${context}`);
        sessionPlayer.balance = minorFromText(match[1]!, sessionPlayer.decimals);
        for (const [id, booking] of bookings) booked.set(id, booking);
        history.push({ path, text });
        if (history.length > HISTORY_MAX) history.shift();
      } else {
        assert.match(contentType, /^application\/problem\+json/, context);
        let problem: { code: ErrorCode; status: number; detail: string };
        try {
          problem = JSON.parse(response.body) as typeof problem;
        } catch {
          assert.fail(`a refusal body is not JSON: ${context}`);
        }
        assert.ok(WALLET_CODES.has(problem.code), `unexpected code: ${context}`);
        assert.equal(status, ERRORS[problem.code].status, context);
        assert.equal(problem.status, status, context);
        assert.equal(typeof problem.detail, 'string', context);
        stats.codes.set(problem.code, (stats.codes.get(problem.code) ?? 0) + 1);
        // A refusal that shows a balance shows the session player's, unchanged.
        const shown = /,"balance":([^,}]+)\}$/.exec(response.body);
        if (shown) {
          assert.ok(sessionPlayer, `a balance shown for no known session: ${context}`);
          assert.equal(shown[1], formatMinorText(sessionPlayer.balance, sessionPlayer.decimals), `balance shown by a refusal: ${context}`);
        }
      }

      // Nothing moved but what the model expects, for every player.
      for (const p of players) {
        assert.equal(await storedBalanceText(p.playerId), formatMinorText(p.balance, p.decimals), `stored balance of ${p.playerId}: ${context}`);
      }
      if (runs % VERIFY_EVERY_RUNS === 0) {
        const report = await op.store.verify();
        assert.ok(report.ok, `verify after ${runs} runs: ${report.problems.join('; ')}`);
      }
    });

    await fc.assert(property, { numRuns, endOnFailure: true, includeErrorInReport: true, ...(SEED === undefined ? {} : { seed: SEED }) });

    const report = await op.store.verify();
    assert.ok(report.ok, report.problems.join('; '));
    const viaHttp = await admin(op.app, 'GET', '/admin/verify');
    assert.equal(viaHttp.status, 200);
    assert.equal(viaHttp.body.ok, true, viaHttp.raw);

    // The run reached past validation: valid requests were booked and the deeper rules answered.
    const summary = JSON.stringify({ ...stats, runs, codes: Object.fromEntries(stats.codes) });
    assert.ok(stats.okUnmutated >= stats.unmutated / 10, `too few valid requests were accepted: ${summary}`);
    assert.ok(stats.breaches > 0, `no body broke I-JSON: ${summary}`);
    for (const code of ['INVALID_REQUEST', 'INSUFFICIENT_FUNDS', 'DUPLICATE_CONFLICT', 'ROUND_CLOSED', 'ROUND_MISMATCH'] as const) {
      assert.ok((stats.codes.get(code) ?? 0) > 0, `no request reached ${code}: ${summary}`);
    }
    console.log(`fuzz summary: ${summary}`);
  } finally {
    await op.close();
  }
}

for (const backend of OPERATOR_BACKENDS) {
  describe(`body fuzz (${backend.name})`, { skip: backend.unavailable }, () => {
    test(`${RUNS} random, validly signed /transaction and /payout bodies never break the wallet`, { timeout: 300_000 }, () =>
      fuzzTheWallet(backend.name, RUNS),
    );
  });
}
