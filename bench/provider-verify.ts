/**
 * The provider's `verify` over a grown store: `node dist/bench/provider-verify.js
 * [--rounds N] [--database postgres://...] [--runs R]` writes N real rounds
 * (three dice rounds to one reels round, one reels round in a thousand a
 * jackpot hit) through the store, delivers every request as the outbox
 * does (claimed, answered 200), then times `ProviderStore.verify()` R times,
 * what GET /admin/verify and `wagerlink provider verify` both run, and the
 * longest the event loop waited meanwhile: what a serving node's HTTP
 * thread would have waited. SQLite writes a file in a temporary folder,
 * PostgreSQL a schema of its own in the URL's database, dropped at the end
 * (`--keep` keeps either, `--file` and `--schema` name them, and `--grown`
 * only verifies what a kept run grew). docs/performance.md keeps its numbers.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { CLAIM_LIMITS } from '../src/dispatch/outbox.js';
import { DEFAULT_POSTGRES_SETTINGS } from '../src/platform/postgres/settings.js';
import { commitment } from '../src/game/fairness.js';
import type { RoundCall } from '../src/game/reels-calls.js';
import { CURRENCIES } from '../src/protocol/money.js';
import { SeedKeyring } from '../src/provider/seed-keyring.js';
import { openProviderStore } from '../src/provider/store/open-provider-store.js';
import type { GameSessionRow, NewReelsRound, NewRound, NextSeed, ProviderStore } from '../src/provider/store/provider-store.js';
import { diceRoundBody, reelsCallBody } from '../src/rounds/bodies.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '100000' },
    /** A PostgreSQL URL; without it a SQLite file. */
    database: { type: 'string' },
    /** The SQLite file, or the PostgreSQL schema, to grow (default a new one, removed at the end). */
    file: { type: 'string' },
    schema: { type: 'string' },
    /** The file or schema already holds the grown store (a run with --keep): only verify it. */
    grown: { type: 'boolean', default: false },
    /** Writes the rounds without delivering them: every round pending, with its first request. */
    undelivered: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    runs: { type: 'string', default: '3' },
  },
});
const ROUNDS = Number(values.rounds);
const RUNS = Number(values.runs);
/** Rounds per game session, played one after another; the sessions are played side by side. */
const ROUNDS_PER_SESSION = 1_000;
const SESSIONS_PER_WAVE = 8;
/** The sessions' operators, in turn: a claim takes at most OPERATOR_IN_FLIGHT_MAX items of one. */
const OPERATORS = 4;
const SEED = 'ab'.repeat(32);
const NOW = Date.parse('2026-11-01T00:00:00Z');
const keyring = new SeedKeyring(new Map([['bench', randomBytes(32)]]), 'bench');
const NEXT: NextSeed = { sealed: keyring.seal(SEED, { session: 'bench', nonce: 0 }), hash: commitment(SEED) };

function session(store: ProviderStore, game: 'dice' | 'reels', index: number): Promise<GameSessionRow> {
  return store.createSession({
    sessionId: randomUUID(),
    launchId: randomUUID(),
    mode: 'real',
    operatorId: `bench-operator-${index % OPERATORS}`,
    walletId: null,
    game,
    playerId: `player-${index}`,
    operatorSessionId: randomUUID(),
    currency: 'EUR',
    country: null,
    language: 'en',
    balanceMinor: 10n ** 12n,
    sealedSeed: NEXT.sealed,
    serverSeedHash: NEXT.hash,
    now: NOW,
  });
}

function diceRound(row: GameSessionRow, nonce: number): NewRound & { requestBody: string } {
  const round: Omit<NewRound, 'requestBody'> = {
    roundId: randomUUID(),
    sessionPk: row.pk,
    mode: 'real',
    operatorId: row.operatorId,
    playerId: row.playerId,
    game: 'dice',
    currency: 'EUR',
    betMinor: 100n,
    winMinor: nonce % 2 === 0 ? 0n : 196n,
    betTxId: randomUUID(),
    winTxId: randomUUID(),
    campaignId: null,
    campaignFinished: null,
    chancePct: 50,
    threshold: 5_000,
    roll: nonce % 2 === 0 ? 7_000 : 3_000,
    serverSeed: SEED,
    sealedSeed: null,
    serverSeedHash: commitment(SEED),
    clientSeed: 'c',
    nonce,
    createdAt: NOW + nonce,
  };
  return { ...round, requestBody: diceRoundBody(round, row, 2) };
}

/** A reels round of a bet of 1.00 (contribution 0.01, base win 0.50), its calls' bodies as the game makes them. */
function reelsRound(row: GameSessionRow, nonce: number, jackpotHit: boolean): NewReelsRound {
  const dice = diceRound(row, nonce);
  const [betTxId, winTxId, jackpotTxId] = [dice.betTxId!, dice.winTxId!, randomUUID()];
  const onWire = { operatorSessionId: row.operatorSessionId!, playerId: row.playerId!, game: 'reels' };
  return {
    ...dice,
    game: 'reels',
    winMinor: 50n,
    chancePct: 0,
    threshold: 0,
    roll: 0,
    requestBody: null,
    plan: {
      rtpBp: 9_600,
      jackpotBp: 100,
      baseWinMinor: 50n,
      featureWinMinor: 0n,
      jackpotContributionMinor: 1n,
      jackpotHit,
      jackpotSeedMinor: 5_000n,
      freeSpins: 0,
    },
    callBodies: (jackpot) => {
      const calls: RoundCall[] = [
        { transactions: [{ id: betTxId, type: 'bet', amountMinor: 100n, jpAmountMinor: 1n }], finished: false },
        {
          transactions: [
            { id: winTxId, type: 'win', amountMinor: 50n },
            ...(jackpot === undefined ? [] : [{ id: jackpotTxId, type: 'win' as const, amountMinor: jackpot, jpAmountMinor: jackpot }]),
          ],
          finished: true,
        },
      ];
      return calls.map((call) => reelsCallBody(call, dice.roundId, onWire, 2));
    },
  };
}

/**
 * Plays `rounds` rounds in sessions of ROUNDS_PER_SESSION, every fourth
 * session reels, SESSIONS_PER_WAVE sessions side by side, and delivers
 * each wave's requests before the next, as a serving node delivers while
 * it plays: the outbox's claim reads the pending items of an operator,
 * and 100,000 of them at once would only time its claims out.
 */
async function grow(store: ProviderStore, rounds: number): Promise<number> {
  const sessions = Math.ceil(rounds / ROUNDS_PER_SESSION);
  let reelsRounds = 0;
  let delivered = 0;
  // Undelivered, nothing is claimed: every session is played at once.
  const perWave = values.undelivered ? sessions : SESSIONS_PER_WAVE;
  for (let first = 0; first < sessions; first += perWave) {
    const wave = Array.from({ length: Math.min(perWave, sessions - first) }, (_, offset) => first + offset);
    await Promise.all(
      wave.map(async (index) => {
        const reels = index % 4 === 3;
        const row = await session(store, reels ? 'reels' : 'dice', index);
        const count = Math.min(ROUNDS_PER_SESSION, rounds - index * ROUNDS_PER_SESSION);
        for (let nonce = 0; nonce < count; nonce++) {
          const written = reels
            ? await store.beginReelsRound(reelsRound(row, nonce, ++reelsRounds % 1_000 === 0), NEXT)
            : await store.beginRealRound(diceRound(row, nonce), NEXT);
          if (!written.ok) throw new Error(`round ${nonce} of session ${index}: ${written.conflict}`);
        }
      }),
    );
    if (!values.undelivered) delivered += await deliver(store);
  }
  await store.durable();
  return delivered;
}

/** Claims and answers 200 every request due, again while answers enqueue more (a reels round's base spin). */
async function deliver(store: ProviderStore): Promise<number> {
  let delivered = 0;
  for (;;) {
    await store.durable();
    const claimed = await store.outbox.claim(NOW + 60_000, 'bench', CLAIM_LIMITS);
    if (claimed.length === 0) return delivered;
    await Promise.all(claimed.map((item) => store.outbox.sent(item.id, 'bench', { status: 200, detail: 'HTTP 200', balance: '100' }, NOW + 1)));
    delivered += claimed.length;
  }
}

async function main(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'wagerlink-provider-verify-'));
  const schema = values.schema ?? `provider_verify_bench_${randomBytes(4).toString('hex')}`;
  const database = values.database ?? values.file ?? join(folder, 'provider.db');
  // A statement time-out of a minute: claims over a table of 100,000 pending items, on a shared host, are no failure here.
  const store = await openProviderStore(database, {
    currencies: CURRENCIES,
    ...(values.database === undefined ? {} : { schema, postgres: { ...DEFAULT_POSTGRES_SETTINGS, poolSize: 8, statementTimeoutMs: 60_000 } }),
  });
  try {
    let started = performance.now();
    if (!values.grown) {
      const delivered = await grow(store, ROUNDS);
      process.stdout.write(`${ROUNDS} rounds written and ${delivered} requests delivered in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    }
    for (let run = 1; run <= RUNS; run++) {
      const loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      started = performance.now();
      const verdict = await store.verify();
      const seconds = (performance.now() - started) / 1000;
      loop.disable();
      if (!verdict.ok) throw new Error(`the grown store does not verify: ${JSON.stringify(verdict.findings.slice(0, 3))}`);
      const waited = (nanoseconds: number) => `${(nanoseconds / 1e6).toFixed(0)} ms`;
      process.stdout.write(
        `verify ${run}: ${seconds.toFixed(2)} s, ${JSON.stringify(verdict.counted)}; the event loop waited at most ${waited(loop.max)} (p99 ${waited(loop.percentile(99))})\n`,
      );
    }
  } finally {
    await store.close();
    // A file named by --file is never removed.
    if (values.keep) process.stdout.write(`kept ${values.database === undefined ? database : `schema ${schema}`}\n`);
    else rmSync(folder, { recursive: true, force: true });
    if (!values.keep && values.database !== undefined) {
      const admin = postgres(values.database, { max: 1, onnotice: () => {} });
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end({ timeout: 5 });
    }
  }
}

await main();
