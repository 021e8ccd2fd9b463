/**
 * The end-to-end rows of `npm run bench`, one per game: game rounds played
 * at the provider and booked by the operator, both servers running as in
 * production (`wagerlink operator serve` on SQLite, `wagerlink provider
 * serve` with a config that names it). wrk plays rounds through the game
 * page's own API (`POST /game/<slug>/api/play`), one launch per connection,
 * the way a player's browser does. For each round the provider writes the
 * round, pending, and its first /transaction body into its outbox in one
 * database transaction, waits for that to be durable, and the outbox's
 * dispatcher sends it and settles the round with the answer while the
 * player's request waits (docs/dispatch.md): the durable record that has a
 * round delivered exactly once, whatever fails in between. These rows
 * measure the path a player's round takes, the dispatcher's claims and
 * outcomes included; a run leaves nothing pending.
 *
 * Dice: a round is one request, one /transaction of bet and win.
 *
 * Reels: a round is the bet's /transaction, then the base spin's win sent by
 * the bet's final hook, both before the play is answered; about one round in
 * a hundred triggers free spins, and then the launch owes its feature: its
 * next plays are refused (409 ROUND_UNFINISHED) until its free spins are
 * played, and the feature's wins are a third /transaction. wrk replays a
 * fixed list and cannot follow a feature, so the row runs a feature
 * follower beside it, as a player's page would: every FOLLOW_INTERVAL_MS it
 * reads each launch's state and plays the free spins of an unfinished round
 * (`POST /game/reels/api/free-spin`), the page's own requests, sent by the
 * bench process (whose CPU the row does not count). The provider's own
 * completion of a left round (limits.roundCompletionMinutes, at least a
 * minute) is too slow for a run of seconds. req/s counts the plays wrk had
 * answered 200 or 202, rounds; a play refused while its launch's feature
 * was open is not a round and is counted in the note, as are the free spins
 * the follower played. After the last run the follower plays every feature
 * still open and waits for its wins to be booked, so the ledger is complete
 * when it is verified.
 *
 * The server CPU column counts both servers. After the runs the operator's
 * books must verify, and every round the provider answered must be in them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createProviderClient } from '../src/clients/provider-client.js';
import { FREE_SPINS_MAX } from '../src/game/reels.js';
import { PLAYER_CALLS_LIMIT_MAX } from '../src/provider/config-schema.js';
import { deliveryTimes } from './delivery-times.js';
import type { BenchKit, Row, RunResult } from './postgres-rows.js';

export type EndToEndGame = 'dice' | 'reels';

/** The row of each game; a `--rows` filter of "end to end" selects both, "dice" or "reels" one. */
export const END_TO_END_ROWS: Readonly<Record<EndToEndGame, string>> = {
  dice: 'end to end, dice rounds',
  reels: 'end to end, reels rounds',
};

/**
 * The bound of the rows above on this stack: the wallet's single bet sent
 * through a forwarder (bench/forwarder-server.ts) that adds only a round's
 * second HTTP hop. It runs with them under the same filter.
 */
export const FORWARDER_ROW = 'end to end, forwarding only';

const OPERATOR_ID = 'bench-operator';
const WALLET_ID = 'bench-wallet';
/** A bet of each game's ladder below; dice at a chance that makes about half the rounds a [bet, win]. */
const BET = '1';
const CHANCE_PCT = 50;
/**
 * Requests written per launch. A round needs no id of its own (the provider
 * makes them), so wrk replays a short list in a loop instead of formatting
 * hundreds of thousands of requests it would never send at this row's pace.
 */
const REQUESTS_PER_LAUNCH = 16;
/**
 * How often the feature follower reads every launch's state (ms): a launch
 * waits at most about this long for its free spins to be played, and the
 * follower's reads stay far below the plays (64 launches, 5 times a second).
 */
const FOLLOW_INTERVAL_MS = 200;
/** How long, after the last run, the row waits for the features' wins to be booked (ms); then it fails. */
const SETTLE_WAIT_MS = 60_000;
/** The /transaction requests' transactions one round can book at most: dice a bet and a win; reels a bet, the base win, a jackpot, a win per free spin. */
const TRANSFERS_PER_ROUND_MAX: Readonly<Record<EndToEndGame, number>> = { dice: 2, reels: 3 + FREE_SPINS_MAX };

export interface EndToEndOptions {
  work: string;
  runs: number;
  /** Launches opened, one per connection. */
  launches: number;
  /** WAGERLINK_SECRET, WAGERLINK_ACCESS_TOKENS, WAGERLINK_ADMIN_TOKEN of the run. */
  env: Record<string, string>;
}

export async function endToEndRow(kit: BenchKit, game: EndToEndGame, options: EndToEndOptions): Promise<Row> {
  const name = END_TO_END_ROWS[game];
  const operatorPort = await kit.freePort();
  const providerPort = await kit.freePort();
  const operator = await kit.startProcess(
    ['bin/wagerlink.js', 'operator', 'serve'],
    {
      ...options.env,
      WAGERLINK_PORT: String(operatorPort),
      WAGERLINK_DATABASE: join(options.work, `end-to-end-${game}-operator.db`),
      WAGERLINK_LOG_LEVEL: 'info',
    },
    /ready on/,
  );
  try {
    const configFile = join(options.work, `end-to-end-${game}-provider.json`);
    writeFileSync(configFile, JSON.stringify(providerConfig(game, options, operatorPort, providerPort)));
    const provider = await kit.startProcess(['bin/wagerlink.js', 'provider', 'serve', '--config', configFile], {}, /ready on/);
    try {
      const tokens = await openLaunches(kit, game, options, operatorPort, providerPort);
      const follower = game === 'reels' ? new FeatureFollower(providerPort, tokens) : undefined;
      const runs: RunResult[] = [];
      for (let run = 0; run < options.runs; run++) {
        const file = join(options.work, `end-to-end-${game}-${run}.txt`);
        await kit.writeRequests(file, tokens.length * REQUESTS_PER_LAUNCH, (i) => ({
          path: `/game/${game}/api/play`,
          body: JSON.stringify(
            game === 'dice'
              ? { token: tokens[i % tokens.length], bet: BET, chancePct: CHANCE_PCT, clientSeed: `bench-${i}` }
              : { token: tokens[i % tokens.length], bet: BET, clientSeed: `bench-${i}` },
          ),
        }));
        kit.log(`${name}: run ${run + 1} of ${options.runs}`);
        const following = follower?.follow();
        try {
          runs.push(await kit.runWrk(providerPort, file, [provider.pid!, operator.pid!]));
        } finally {
          await follower?.stop(following);
        }
      }
      if (follower) await follower.finishAll(SETTLE_WAIT_MS);
      const report = await kit.api(operatorPort, 'GET', '/admin/verify', undefined);
      if (report.ok !== true) throw new Error(`${name}: the ledger did not verify after the run: ${JSON.stringify(report)}`);
      // Each answered round booked its bet, and its wins; the opening deposits are one transfer per player. wrk
      // stops with a round in flight on each connection, which is booked but not counted as answered.
      const answered = runs.reduce((sum, r) => sum + (r.statuses['200'] ?? 0) + (r.statuses['202'] ?? 0), 0);
      const roundTransfers = Number(report.transfers) - options.launches;
      if (roundTransfers < answered || roundTransfers > TRANSFERS_PER_ROUND_MAX[game] * (answered + options.launches * options.runs)) {
        throw new Error(`${name}: ${answered} rounds answered, but the ledger holds ${roundTransfers} round transfers`);
      }
      const refused = runs.reduce((sum, r) => sum + (r.statuses['409'] ?? 0), 0);
      const featureNote = follower ? `; ${follower.freeSpins} free spins played beside wrk, ${refused} plays refused while a feature was open` : '';
      const metrics = await fetch(`http://127.0.0.1:${providerPort}/metrics`, { headers: { authorization: `Bearer ${PROVIDER_METRICS_TOKEN}` } });
      const times = deliveryTimes(await metrics.text());
      const timesNote = times
        ? `; each /transaction answered by the operator in ${times.answerMeanMs.toFixed(1)} ms and delivered ${times.deliveryMeanMs.toFixed(1)} ms after the write that enqueued it (means of ${times.deliveries} deliveries)`
        : '';
      return { ...kit.summarize(runs), note: `verified: ${String(report.transfers)} transfers for ${answered} rounds answered${featureNote}${timesNote}` };
    } finally {
      await kit.stopProcess(provider);
    }
  } finally {
    await kit.stopProcess(operator);
  }
}

/** The example config (examples/provider.json), pointed at this run's operator, database and port, offering the row's game alone. */
/** The token the row reads the provider's /metrics with, as a scraper would. */
const PROVIDER_METRICS_TOKEN = 'bench-provider-metrics-token';

function providerConfig(game: EndToEndGame, options: EndToEndOptions, operatorPort: number, providerPort: number): Record<string, unknown> {
  const example = JSON.parse(readFileSync(new URL('../../examples/provider.json', import.meta.url), 'utf8')) as Record<string, unknown>;
  const ladders = { EUR: ['0.10', BET, '10'] };
  return {
    ...example,
    // wrk plays every launch from one address as fast as the servers answer, thousands of rounds a second: the
    // row measures the servers, not the game pages' call limits (made for players), so it lifts them out of the way.
    limits: { ...(example.limits as object), playerCallsPerAddressMax: PLAYER_CALLS_LIMIT_MAX, roundCallsPerLaunchMax: PLAYER_CALLS_LIMIT_MAX },
    port: providerPort,
    publicBaseUrl: `http://127.0.0.1:${providerPort}`,
    metricsToken: PROVIDER_METRICS_TOKEN,
    database: join(options.work, `end-to-end-${game}-provider.db`),
    operators: [
      {
        operatorId: OPERATOR_ID,
        walletIds: [WALLET_ID],
        secret: options.env.WAGERLINK_SECRET,
        ipWhitelist: ['127.0.0.1', '::1'],
        trustedProxies: [],
        endpoint: `http://127.0.0.1:${operatorPort}`,
        accessToken: options.env.WAGERLINK_ACCESS_TOKENS,
        currencies: ['EUR'],
      },
    ],
    games: [
      game === 'dice'
        ? { slug: 'dice', title: 'Bench Dice', rtp: '0.97', volatility: 'medium', ladders }
        : { slug: 'reels', title: 'Bench Reels', kind: 'reels', rtp: '0.96', ladders, jackpot: { share: '0.01', seeds: { EUR: '100' } } },
    ],
    campaigns: [],
  };
}

/** What the follower reads of a reels launch's state (docs/provider.md, "The reels game's API"). */
interface ReelsState {
  unfinished: { roundId: string; stage: string; feature: { left: number } | null } | null;
  rounds: { stage: string }[];
}

/**
 * Plays the free spins of every launch's unfinished round, as each
 * player's page would, while wrk plays the rounds. Bounded: one pass per
 * FOLLOW_INTERVAL_MS, each launch's feature at most FREE_SPINS_MAX spins.
 */
export class FeatureFollower {
  freeSpins = 0;
  private running = false;
  /** What stopped the follower early: thrown by stop(), so that the row fails with it. */
  private failure: unknown;

  constructor(
    private readonly port: number,
    private readonly tokens: readonly string[],
  ) {}

  /** Starts following; resolves once stop() is called and the pass under way has ended. */
  async follow(): Promise<void> {
    this.running = true;
    try {
      while (this.running) {
        await this.pass();
        await sleep(FOLLOW_INTERVAL_MS);
      }
    } catch (error) {
      this.failure = error;
    }
  }

  async stop(following: Promise<void> | undefined): Promise<void> {
    this.running = false;
    await following;
    if (this.failure !== undefined) throw this.failure;
  }

  /** Plays every open feature, then waits until no launch has a round on its way to the casino. */
  async finishAll(waitMs: number): Promise<void> {
    const deadline = Date.now() + waitMs;
    while (!(await this.pass())) {
      if (Date.now() > deadline) throw new Error(`${END_TO_END_ROWS.reels}: rounds still on their way to the casino after ${waitMs} ms`);
      await sleep(FOLLOW_INTERVAL_MS);
    }
  }

  /** One pass over the launches; true when every launch's rounds are settled. */
  private async pass(): Promise<boolean> {
    let settled = true;
    for (const token of this.tokens) {
      const state = (await this.call('state', { token })) as ReelsState;
      const open = state.unfinished;
      if (open?.stage === 'feature') {
        settled = false;
        for (let spin = 0; spin < FREE_SPINS_MAX && (open.feature?.left ?? 0) > 0; spin++) {
          const answer = (await this.call('free-spin', { token, roundId: open.roundId })) as { round: { feature: { left: number } | null } };
          this.freeSpins += 1;
          open.feature = answer.round.feature;
        }
      }
      if (state.rounds.some((round) => round.stage !== 'settled')) settled = false;
    }
    return settled;
  }

  private async call(path: string, body: unknown): Promise<unknown> {
    const answer = await fetch(`http://127.0.0.1:${this.port}/game/reels/api/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await answer.text();
    if (!answer.ok) throw new Error(`${END_TO_END_ROWS.reels}: ${path} answered ${answer.status}: ${text}`);
    return JSON.parse(text);
  }
}

/**
 * A player per launch on the operator, and the launch as an operator makes
 * it: a launch key, the provider's launch URL for it (signed, from a
 * whitelisted address), then the game opened as its page does, which
 * authenticates the key at the operator. Returns the launch tokens.
 */
async function openLaunches(kit: BenchKit, game: EndToEndGame, options: EndToEndOptions, operatorPort: number, providerPort: number): Promise<string[]> {
  const client = createProviderClient({ endpoint: `http://127.0.0.1:${providerPort}`, secret: options.env.WAGERLINK_SECRET! });
  const tokens: string[] = [];
  try {
    for (let i = 0; i < options.launches; i++) {
      const playerId = `e2e-${game}-${i}`;
      await kit.api(operatorPort, 'POST', '/admin/players', { playerId, currency: 'EUR', balance: 1_000_000_000, country: 'DE' });
      const { key } = (await kit.api(operatorPort, 'POST', '/admin/launch-keys', { playerId, game })) as { key: string };
      const launched = await client.generateLaunchUrl({ mode: 'real', game, language: 'en', walletId: WALLET_ID, operatorId: OPERATOR_ID, key, country: 'DE' });
      if (!launched.ok) throw new Error(`${END_TO_END_ROWS[game]}: no launch URL: ${JSON.stringify(launched)}`);
      const token = new URL(launched.value.url).hash.slice(1);
      const opened = await fetch(`http://127.0.0.1:${providerPort}/game/${game}/api/open`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      if (!opened.ok) throw new Error(`${END_TO_END_ROWS[game]}: the game did not open: ${opened.status} ${await opened.text()}`);
      tokens.push(token);
    }
  } finally {
    await client.close();
  }
  return tokens;
}
