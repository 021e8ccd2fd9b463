/**
 * The end-to-end row of `npm run bench`: game rounds played at the provider
 * and booked by the operator, both servers running as in production
 * (`wagerlink operator serve` on SQLite, `wagerlink provider serve` with a
 * config that names it). wrk plays rounds through the game page's own API
 * (`POST /game/dice/api/play`), one launch per connection, the way a
 * player's browser does. For each round the provider writes the round, pending,
 * and its exact /transaction body into its outbox in one database
 * transaction, waits for that to be durable, and the outbox's dispatcher
 * sends it and settles the round with the answer while the player's
 * request waits (docs/dispatch.md): the durable record that has a round
 * delivered exactly once, whatever fails in between. This row measures the
 * path a player's round takes, the dispatcher's claims and outcomes
 * included; a run leaves nothing pending.
 *
 * The server CPU column counts both servers. After the runs the operator's
 * books must verify, and every round the provider answered must be in them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createProviderClient } from '../src/clients/provider-client.js';
import type { BenchKit, Row, RunResult } from './postgres-rows.js';

export const END_TO_END_ROW = 'end to end, provider rounds';

const OPERATOR_ID = 'bench-operator';
const WALLET_ID = 'bench-wallet';
const GAME = 'dice';
/** A bet of the ladder below, and a chance that makes about half the rounds a [bet, win]. */
const BET = '1';
const CHANCE_PCT = 50;
/**
 * Requests written per launch. A round needs no id of its own (the provider
 * makes them), so wrk replays a short list in a loop instead of formatting
 * hundreds of thousands of requests it would never send at this row's pace.
 */
const REQUESTS_PER_LAUNCH = 16;

export interface EndToEndOptions {
  work: string;
  runs: number;
  /** Launches opened, one per connection. */
  launches: number;
  /** WAGERLINK_SECRET, WAGERLINK_ACCESS_TOKENS, WAGERLINK_ADMIN_TOKEN of the run. */
  env: Record<string, string>;
}

export async function endToEndRow(kit: BenchKit, options: EndToEndOptions): Promise<Row> {
  const operatorPort = await kit.freePort();
  const providerPort = await kit.freePort();
  const operator = await kit.startProcess(
    ['bin/wagerlink.js', 'operator', 'serve'],
    { ...options.env, WAGERLINK_PORT: String(operatorPort), WAGERLINK_DATABASE: join(options.work, 'end-to-end-operator.db'), WAGERLINK_LOG_LEVEL: 'info' },
    /ready on/,
  );
  try {
    const configFile = join(options.work, 'end-to-end-provider.json');
    writeFileSync(configFile, JSON.stringify(providerConfig(options, operatorPort, providerPort)));
    const provider = await kit.startProcess(['bin/wagerlink.js', 'provider', 'serve', '--config', configFile], {}, /ready on/);
    try {
      const tokens = await openLaunches(kit, options, operatorPort, providerPort);
      const runs: RunResult[] = [];
      for (let run = 0; run < options.runs; run++) {
        const file = join(options.work, `end-to-end-${run}.txt`);
        await kit.writeRequests(file, tokens.length * REQUESTS_PER_LAUNCH, (i) => ({
          path: `/game/${GAME}/api/play`,
          body: JSON.stringify({ token: tokens[i % tokens.length], bet: BET, chancePct: CHANCE_PCT, clientSeed: `bench-${i}` }),
        }));
        kit.log(`${END_TO_END_ROW}: run ${run + 1} of ${options.runs}`);
        runs.push(await kit.runWrk(providerPort, file, [provider.pid!, operator.pid!]));
      }
      const report = await kit.api(operatorPort, 'GET', '/admin/verify', undefined);
      if (report.ok !== true) throw new Error(`${END_TO_END_ROW}: the ledger did not verify after the run: ${JSON.stringify(report)}`);
      // Each answered round booked its bet, and its win when it won; the opening deposits are one transfer per
      // player. wrk stops with a round in flight on each connection, which is booked but not counted as answered.
      const answered = runs.reduce((sum, r) => sum + (r.statuses['200'] ?? 0), 0);
      const roundTransfers = Number(report.transfers) - options.launches;
      if (roundTransfers < answered || roundTransfers > 2 * (answered + options.launches * options.runs)) {
        throw new Error(`${END_TO_END_ROW}: ${answered} rounds answered, but the ledger holds ${roundTransfers} round transfers`);
      }
      return { ...kit.summarize(runs), note: `verified: ${String(report.transfers)} transfers for ${answered} rounds answered` };
    } finally {
      await kit.stopProcess(provider);
    }
  } finally {
    await kit.stopProcess(operator);
  }
}

/** The example config (examples/provider.json), pointed at this run's operator, database and port. */
function providerConfig(options: EndToEndOptions, operatorPort: number, providerPort: number): Record<string, unknown> {
  const example = JSON.parse(readFileSync(new URL('../../examples/provider.json', import.meta.url), 'utf8')) as Record<string, unknown>;
  return {
    ...example,
    port: providerPort,
    publicBaseUrl: `http://127.0.0.1:${providerPort}`,
    database: join(options.work, 'end-to-end-provider.db'),
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
    games: [{ slug: GAME, title: 'Bench Dice', rtp: '0.97', volatility: 'medium', ladders: { EUR: ['0.10', BET, '10'] } }],
    campaigns: [],
  };
}

/**
 * A player per launch on the operator, and the launch as an operator makes
 * it: a launch key, the provider's launch URL for it (signed, from a
 * whitelisted address), then the game opened as its page does, which
 * authenticates the key at the operator. Returns the launch tokens.
 */
async function openLaunches(kit: BenchKit, options: EndToEndOptions, operatorPort: number, providerPort: number): Promise<string[]> {
  const client = createProviderClient({ endpoint: `http://127.0.0.1:${providerPort}`, secret: options.env.WAGERLINK_SECRET! });
  const tokens: string[] = [];
  try {
    for (let i = 0; i < options.launches; i++) {
      const playerId = `e2e-${i}`;
      await kit.api(operatorPort, 'POST', '/admin/players', { playerId, currency: 'EUR', balance: 1_000_000_000, country: 'DE' });
      const { key } = (await kit.api(operatorPort, 'POST', '/admin/launch-keys', { playerId, game: GAME })) as { key: string };
      const launched = await client.generateLaunchUrl({ mode: 'real', game: GAME, language: 'en', walletId: WALLET_ID, operatorId: OPERATOR_ID, key, country: 'DE' });
      if (!launched.ok) throw new Error(`${END_TO_END_ROW}: no launch URL: ${JSON.stringify(launched)}`);
      const token = new URL(launched.value.url).hash.slice(1);
      const opened = await fetch(`http://127.0.0.1:${providerPort}/game/${GAME}/api/open`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      if (!opened.ok) throw new Error(`${END_TO_END_ROW}: the game did not open: ${opened.status} ${await opened.text()}`);
      tokens.push(token);
    }
  } finally {
    await client.close();
  }
  return tokens;
}
