/**
 * Proves the game page and its API (the provider's side of docs/protocol.md §8.1
 * and docs/protocol.md §5, §8) against a real operator on a real socket: opening
 * a real launch authenticates the launch key and is reload-safe; each play
 * is one /transaction of bet and win that finishes the round, and the
 * balance shown is the operator's answer; rounds verify; free rounds carry
 * their campaign; fun mode never reaches the operator; and each refusal of
 * the page API (tokens, sessions, bets, the operator's own) is tested; the
 * files served are those web/files.json lists, and a broken list stops the
 * server at start. On every provider store backend (PROVIDER_BACKENDS).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { commitment, verifyRound } from '../../src/game/fairness.js';
import { launchTokens } from '../../src/provider/launch-token.js';
import { readWebManifest } from '../../src/provider/routes/game.js';
import { admin, balanceOf, ledgerOf, makeOperator, type Operator } from '../helpers.js';
import {
  adminCall,
  assertProblem,
  launchOf,
  makeProvider,
  operatorCall,
  pageCall,
  PROVIDER_BACKENDS,
  realLaunchBody,
  type Provider,
} from './provider-helpers.js';

test('a manifest naming a file outside its folder, or no page for a kind of game, stops the server at start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wl-web-'));
  try {
    const write = (manifest: object) => writeFileSync(join(dir, 'files.json'), JSON.stringify(manifest));
    write({ pages: { dice: 'index.html', reels: 'reels.html' }, assets: { '../package.json': 'application/json' } });
    assert.throws(() => readWebManifest(dir), /files\.json: an asset is not a file name of the pages' folder: \.\.\/package\.json/);
    write({ pages: { dice: 'index.html' }, assets: {} });
    assert.throws(() => readWebManifest(dir), /files\.json: the page of reels is not a file name/);
    write({ pages: { dice: 'index.html', reels: 'reels.html' }, assets: { 'game.js': 'text/javascript' } });
    assert.deepEqual(readWebManifest(dir).assets, new Map([['game.js', 'text/javascript']]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

for (const backend of PROVIDER_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`the game page: ${backend.name}`, { skip: backend.unavailable }, () => {
    let op: Operator;
    let provider: Provider;
    /** Every request the operator received, by URL. */
    const operatorCalls: string[] = [];

    before(async () => {
      op = await makeOperator();
      op.app.addHook('onRequest', async (request) => {
        operatorCalls.push(request.url);
      });
      const origin = await op.app.listen({ host: '127.0.0.1', port: 0 });
      provider = await makeProvider({ endpoint: origin, backend: backend.name });
    });

    after(async () => {
      await provider.close();
      await op.close();
    });

    interface Launch {
      playerId: string;
      token: string;
      slug: string;
      path: string;
    }

    async function newPlayer(options: { balance?: number; currency?: string } = {}): Promise<string> {
      const playerId = `player-${randomUUID().slice(0, 8)}`;
      const created = await admin(op.app, 'POST', '/admin/players', {
        playerId,
        currency: options.currency ?? 'EUR',
        balance: options.balance ?? 100,
        country: 'DE',
      });
      assert.equal(created.status, 201, created.raw);
      return playerId;
    }

    /** What the operator does to launch a player: a launch key, then /generate-launch-url. */
    async function launchReal(
      options: { playerId?: string; game?: string; balance?: number; currency?: string; urls?: Record<string, string> } = {},
    ): Promise<Launch> {
      const playerId = options.playerId ?? (await newPlayer(options));
      const game = options.game ?? 'dice';
      const key = await admin(op.app, 'POST', '/admin/launch-keys', { playerId, game });
      assert.equal(key.status, 201, key.raw);
      const answer = await operatorCall(
        provider.app,
        '/generate-launch-url',
        realLaunchBody({ game, key: key.body.key, ...(options.urls ? { urls: options.urls } : {}) }),
      );
      assert.equal(answer.status, 200, answer.raw);
      return { playerId, ...launchOf(answer.body.url as string) };
    }

    async function launchFun(game = 'dice'): Promise<Launch> {
      const answer = await operatorCall(provider.app, '/generate-launch-url', { mode: 'fun', game, language: 'en' });
      assert.equal(answer.status, 200, answer.raw);
      return { playerId: '', ...launchOf(answer.body.url as string) };
    }

    const open = (launch: Launch, token = launch.token) => pageCall(provider.app, `${launch.path}/api/open`, { token });
    const play = (launch: Launch, input: Record<string, unknown> = {}) =>
      pageCall(provider.app, `${launch.path}/api/play`, { token: launch.token, bet: '1', chancePct: 50, clientSeed: 'test-seed', ...input });

    // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
    describe('the page', () => {
      test("GET /game/:slug serves the page, framable by the operators' pages alone, with a strict content policy", async () => {
        const page = await provider.app.inject({ method: 'GET', url: '/game/dice' });
        assert.equal(page.statusCode, 200);
        assert.match(String(page.headers['content-type']), /^text\/html/);
        assert.match(page.body, /<script type="module" src="assets\/game\.js">/);
        const policy = String(page.headers['content-security-policy']);
        assert.match(policy, /script-src 'self'/);
        // Framed by the pages of the operators' pageOrigins, and by no other site.
        assert.match(policy, /(?:^|; )frame-ancestors http:\/\/127\.0\.0\.1:8080 http:\/\/localhost:8080 https:\/\/casino\.example(?:;|$)/);
        // It calls its own provider and the operators' pages (urls.refresh), and nowhere else: no scheme-wide source.
        assert.match(policy, /(?:^|; )connect-src 'self' http:\/\/127\.0\.0\.1:8080 http:\/\/localhost:8080 https:\/\/casino\.example(?:;|$)/);
        assert.doesNotMatch(policy, /(?:^| )(?:https?:|\*)(?: |;|$)/, policy);
        assert.equal(page.headers['referrer-policy'], 'no-referrer');
      });

      test("each game is served its kind's page: reels its own, with the same policy", async () => {
        const page = await provider.app.inject({ method: 'GET', url: '/game/reels' });
        assert.equal(page.statusCode, 200);
        assert.match(page.body, /<script type="module" src="assets\/reels-page\.js">/);
        assert.doesNotMatch(page.body, /assets\/game\.js/);
        assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
      });

      test('the assets are served with their types, and nothing else', async () => {
        const types: Record<string, RegExp> = {
          'page.js': /^text\/javascript/,
          'reels-page.js': /^text\/javascript/,
          'reels-api.js': /^text\/javascript/,
          'game.js': /^text\/javascript/,
          'game.css': /^text\/css/,
          'favicon.svg': /^image\/svg\+xml/,
          'strings.json': /^application\/json/,
        };
        for (const [file, type] of Object.entries(types)) {
          const asset = await provider.app.inject({ method: 'GET', url: `/game/assets/${file}` });
          assert.equal(asset.statusCode, 200, file);
          assert.match(String(asset.headers['content-type']), type);
        }
        for (const url of [
          '/game/assets/index.html',
          '/game/assets/reels.html',
          '/game/assets/..%2Fpackage.json',
          '/game/assets/constructor',
          '/game/assets/__proto__',
        ]) {
          const asset = await provider.app.inject({ method: 'GET', url });
          assert.equal(asset.statusCode, 404, url);
        }
      });

      test('every file web/files.json names exists and is served as it says; no other file of web/ is', async () => {
        const web = fileURLToPath(new URL('../../../web/', import.meta.url));
        // Read apart from the server's reader, so that a reader that skipped an entry would show.
        const manifest = JSON.parse(readFileSync(join(web, 'files.json'), 'utf8')) as { pages: Record<string, string>; assets: Record<string, string> };
        for (const [kind, file] of Object.entries(manifest.pages)) {
          assert.ok(existsSync(join(web, file)), `the page of ${kind}, ${file}, is in web/`);
          const page = await provider.app.inject({ method: 'GET', url: `/game/${kind}` });
          assert.equal(page.statusCode, 200, kind);
          assert.equal(page.body, readFileSync(join(web, file), 'utf8'), `${kind} is served ${file}`);
        }
        for (const [file, type] of Object.entries(manifest.assets)) {
          assert.ok(existsSync(join(web, file)), `${file} is in web/`);
          const asset = await provider.app.inject({ method: 'GET', url: `/game/assets/${file}` });
          assert.equal(asset.statusCode, 200, file);
          assert.equal(asset.headers['content-type'], type, file);
          assert.equal(asset.headers['cache-control'], 'public, max-age=300', file);
          assert.deepEqual(asset.rawPayload, readFileSync(join(web, file)), file);
        }
        const unlisted = readdirSync(web).filter((file) => statSync(join(web, file)).isFile() && !Object.hasOwn(manifest.assets, file));
        assert.ok(unlisted.includes('files.json') && unlisted.includes('index.html'), unlisted.join(', '));
        for (const file of [...unlisted, 'not-a-file.js']) {
          const asset = await provider.app.inject({ method: 'GET', url: `/game/assets/${file}` });
          assert.equal(asset.statusCode, 404, file);
        }
      });

      test('404 GAME_NOT_FOUND for a game that is not offered', async () => {
        const page = await provider.app.inject({ method: 'GET', url: '/game/poker' });
        assert.equal(page.statusCode, 404);
        assert.equal(page.json().code, 'GAME_NOT_FOUND');
      });
    });

    // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
    describe('real mode', () => {
      test("opening authenticates the launch key and shows the operator's balance, ladder and commitment", async () => {
        const launch = await launchReal({ balance: 100, urls: { lobby: 'https://casino.example/lobby', refresh: 'https://casino.example/refresh' } });
        const opened = await open(launch);
        assert.equal(opened.status, 200, opened.raw);
        const view = opened.body as Record<string, any>;
        assert.equal(view.mode, 'real');
        assert.equal(view.currency, 'EUR');
        assert.equal(view.decimals, 2);
        assert.equal(view.balance, '100');
        assert.deepEqual(view.ladder, ['0.1', '0.2', '0.5', '1', '2', '5', '10', '20', '50', '100']);
        assert.equal(view.defaultBet, '1');
        assert.deepEqual(view.game, { slug: 'dice', title: 'Lucky Dice', rtp: '0.97', volatility: 'medium', chancePctMin: 10, chancePctMax: 95, rtpBp: 9700 });
        assert.match(view.fairness.serverSeedHash, /^[0-9a-f]{64}$/);
        assert.equal(view.fairness.nonce, 0);
        assert.deepEqual(view.rounds, []);
        assert.equal(view.freeRounds, null);
        assert.equal(view.urls.lobby, 'https://casino.example/lobby');
        // The page calls urls.refresh in real mode, at the configured interval.
        assert.equal(view.refreshIntervalMs, provider.config.limits.refreshIntervalMs);
        assert.equal(view.language, 'en-GB');
      });

      test('a reload opens the same session: same commitment, same rounds, the current balance', async () => {
        const launch = await launchReal({ balance: 50 });
        const first = await open(launch);
        const again = await open(launch);
        assert.equal(again.status, 200, again.raw);
        assert.deepEqual(again.body.fairness, first.body.fairness);
        const played = await play(launch, { bet: '2', chancePct: 50 });
        assert.equal(played.status, 200, played.raw);
        const reloaded = await open(launch);
        assert.equal(reloaded.status, 200, reloaded.raw);
        assert.equal(reloaded.body.balance, played.body.balance);
        assert.deepEqual(reloaded.body.fairness, played.body.fairness);
        assert.deepEqual((reloaded.body.rounds as unknown[])[0], played.body.round);
        assert.equal((await provider.store.sessionByLaunch(launchClaimsId(launch)))?.nonce, 1);
      });

      test("a play is one /transaction of bet and win that finishes the round; the balance is the operator's", async () => {
        const launch = await launchReal({ balance: 100 });
        await open(launch);
        let expected = 10_000n; // minor units
        const seenIds: string[] = [];
        for (let i = 0; i < 12; i++) {
          const bet = ['0.1', '0.5', '1', '2'][i % 4]!;
          const chancePct = [10, 33, 50, 95][i % 4]!;
          const before = operatorCalls.length;
          const answer = await play(launch, { bet, chancePct, clientSeed: `seed-${i}` });
          assert.equal(answer.status, 200, answer.raw);
          assert.deepEqual(operatorCalls.slice(before), ['/transaction']);
          const round = answer.body.round as Record<string, any>;
          expected += BigInt(Math.round(Number(round.win) * 100)) - BigInt(Math.round(Number(bet) * 100));
          assert.equal(answer.body.balance, (Number(expected) / 100).toString());
          assert.equal(await balanceOf(op.app, launch.playerId), Number(expected) / 100);
          assert.equal(round.status, 'settled');
          assert.equal(round.nonce, i);
          assert.equal(round.chancePct, chancePct);
          assert.equal(
            verifyRound({
              serverSeed: round.serverSeed,
              serverSeedHash: round.serverSeedHash,
              clientSeed: round.clientSeed,
              nonce: round.nonce,
              roll: round.roll,
            }),
            true,
          );
          assert.equal(round.roll < round.threshold, Number(round.win) > 0);
          seenIds.push(round.roundId);
        }
        // The operator's ledger has each round as a bet and a win with the provider's ids, every round closed.
        const rows = (await provider.store.listRounds(500)).filter((row) => row.playerId === launch.playerId);
        const ledger = await ledgerOf(async (url) => {
          const answer = await admin(op.app, 'GET', url);
          return { status: answer.status, text: answer.raw };
        }, launch.playerId);
        for (const row of rows) {
          assert.equal(row.status, 'settled');
          const body = JSON.parse(row.requestBody!) as Record<string, any>;
          assert.equal(body.round.finished, true);
          assert.deepEqual(
            body.transactions.map((t: { type: string }) => t.type),
            ['bet', 'win'],
          );
          assert.ok(ledger.some((item) => item.id === row.betTxId && item.kind === 'bet' && item.roundId === row.roundId));
          assert.ok(ledger.some((item) => item.id === row.winTxId && item.kind === 'win' && item.roundId === row.roundId));
        }
        const rounds = await admin(op.app, 'GET', `/admin/players/${launch.playerId}/rounds?limit=50`);
        assert.ok((rounds.body.items as { finished: boolean }[]).every((round) => round.finished));
        assert.deepEqual(new Set(seenIds), new Set(rows.map((row) => row.roundId)));
      });

      test('the commitment shown before a round is the hash of the seed revealed after it', async () => {
        const launch = await launchReal();
        const opened = await open(launch);
        let shown = (opened.body.fairness as { serverSeedHash: string }).serverSeedHash;
        for (let i = 0; i < 5; i++) {
          const answer = await play(launch);
          const round = answer.body.round as { serverSeed: string; serverSeedHash: string };
          assert.equal(round.serverSeedHash, shown);
          assert.equal(commitment(round.serverSeed), shown);
          shown = (answer.body.fairness as { serverSeedHash: string }).serverSeedHash;
          assert.notEqual(shown, round.serverSeedHash);
        }
      });

      test("402 INSUFFICIENT_FUNDS: the operator's refusal, with its balance; the round is logged refused and its seed stays secret", async () => {
        const launch = await launchReal({ balance: 0.5 });
        const opened = await open(launch);
        const answer = await play(launch, { bet: '1' });
        assertProblem(answer, 'INSUFFICIENT_FUNDS', 0.5);
        const [refused] = await provider.store.listRounds(1);
        assert.equal(refused?.status, 'refused');
        assert.equal(refused?.refusalCode, 'INSUFFICIENT_FUNDS');
        const again = await open(launch);
        assert.deepEqual(again.body.rounds, []);
        assert.notEqual(
          (again.body.fairness as { serverSeedHash: string }).serverSeedHash,
          (opened.body.fairness as { serverSeedHash: string }).serverSeedHash,
        );
        const admitted = await play(launch, { bet: '0.5' });
        assert.equal(admitted.status, 200, admitted.raw);
      });

      test("403 PLAYER_BLOCKED: the operator's refusal reaches the page", async () => {
        const launch = await launchReal();
        await open(launch);
        const blocked = await admin(op.app, 'POST', `/admin/players/${launch.playerId}/block`, { reason: 'test' });
        assert.equal(blocked.status, 200, blocked.raw);
        assertProblem(await play(launch), 'PLAYER_BLOCKED', 100);
      });

      test('422 UNSUPPORTED_CURRENCY: a player whose currency has no ladder', async () => {
        const launch = await launchReal({ currency: 'NOK' });
        const answer = await open(launch);
        assertProblem(answer, 'UNSUPPORTED_CURRENCY');
        // A player may read it: the game and the currency, no operator's id.
        assert.equal(answer.body.detail, 'game dice has no bets in NOK at this casino');
      });

      test('401 INVALID_LAUNCH_KEY: the operator does not know the key', async () => {
        const answer = await operatorCall(provider.app, '/generate-launch-url', realLaunchBody({ key: 'never-issued' }));
        assertProblem(await open({ playerId: '', ...launchOf(answer.body.url as string) }), 'INVALID_LAUNCH_KEY');
      });

      test('concurrent plays of one launch run one after the other', async () => {
        const launch = await launchReal({ balance: 100 });
        await open(launch);
        const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => play(launch, { clientSeed: `c${i}` })));
        for (const answer of answers) assert.equal(answer.status, 200, answer.raw);
        const nonces = answers.map((answer) => (answer.body.round as { nonce: number }).nonce).sort((a, b) => a - b);
        assert.deepEqual(nonces, [0, 1, 2, 3, 4, 5]);
        const last = answers.find((answer) => (answer.body.round as { nonce: number }).nonce === 5)!;
        assert.equal(Number(last.body.balance), await balanceOf(op.app, launch.playerId));
      });
    });

    describe('tokens and sessions', () => {
      test('401 INVALID_LAUNCH_KEY: a token altered, cut, or made up', async () => {
        const launch = await launchReal();
        const flipped = launch.token.slice(0, 10) + (launch.token[10] === 'A' ? 'B' : 'A') + launch.token.slice(11);
        for (const token of [flipped, launch.token.slice(0, -3), 'v1.AAAA', 'hello']) assertProblem(await open(launch, token), 'INVALID_LAUNCH_KEY');
      });

      test('403 SESSION_MISMATCH: a token is good for its own game only', async () => {
        const launch = await launchReal({ game: 'dice' });
        const elsewhere = { ...launch, path: '/game/dice-high-roller', slug: 'dice-high-roller' };
        assertProblem(await open(elsewhere), 'SESSION_MISMATCH');
        await open(launch);
        assertProblem(await play(elsewhere), 'SESSION_MISMATCH');
      });

      test('404 SESSION_NOT_FOUND: playing before the game was opened', async () => {
        assertProblem(await play(await launchReal()), 'SESSION_NOT_FOUND');
      });

      test("the launch's state: what open answers, with no call to the operator; refused without a session or a good token", async () => {
        const launch = await launchReal();
        const followed = () => pageCall(provider.app, `${launch.path}/api/state`, { token: launch.token });
        assertProblem(await followed(), 'SESSION_NOT_FOUND');
        const opened = await open(launch);
        assert.equal(opened.status, 200);
        assert.equal((await play(launch)).status, 200);
        const before = (await admin(op.app, 'GET', `/admin/players/${launch.playerId}`)).body;
        await admin(op.app, 'POST', `/admin/players/${launch.playerId}/block`, { reason: 'test' });
        // A blocked player's operator would refuse an open; the state is the provider's own and still answers.
        const state = await followed();
        assert.equal(state.status, 200, state.raw);
        assert.equal(Number(state.body.balance), before.balance);
        assert.equal((state.body.rounds as { status: string }[])[0]?.status, 'settled');
        assert.deepEqual(Object.keys(state.body).sort(), Object.keys(opened.body).sort(), "the shape of open's answer");
        assertProblem(await pageCall(provider.app, `${launch.path}/api/state`, { token: 'v1.AAAA' }), 'INVALID_LAUNCH_KEY');
        assertProblem(await pageCall(provider.app, '/game/dice-high-roller/api/state', { token: launch.token }), 'SESSION_MISMATCH');
      });

      test('401 INVALID_LAUNCH_KEY: an expired URL opens no new session, but reopens an active one', async () => {
        const unopened = await launchReal();
        const opened = await launchReal();
        assert.equal((await open(opened)).status, 200);
        provider.clock.advance(provider.config.limits.launchTokenTtlMs + 1);
        assertProblem(await open(unopened), 'INVALID_LAUNCH_KEY');
        const reloaded = await open(opened);
        assert.equal(reloaded.status, 200, reloaded.raw);
        provider.clock.advance(provider.config.limits.sessionIdleMs + 1);
        assertProblem(await open(opened), 'INVALID_LAUNCH_KEY');
      });

      test('400 INVALID_REQUEST: a bet off the ladder, a chance out of range, a bad client seed, no token', async () => {
        const launch = await launchReal();
        await open(launch);
        const cases: [Record<string, unknown>, RegExp][] = [
          [{ bet: '1.5' }, /^bet: 1\.5 is not on the EUR bet ladder/],
          [{ bet: '0.10000' }, /./], // on the ladder once normalised: accepted below
          [{ bet: '-1' }, /^bet:/],
          [{ chancePct: 5 }, /^chancePct: must be a whole percent from 10 to 95/],
          [{ chancePct: 96 }, /^chancePct:/],
          [{ chancePct: 50.5 }, /^chancePct:/],
          [{ clientSeed: 'has spaces' }, /^clientSeed:/],
          [{ clientSeed: '' }, /^clientSeed:/],
        ];
        for (const [input, detail] of cases) {
          const answer = await play(launch, input);
          if (input.bet === '0.10000') {
            assert.equal(answer.status, 200, answer.raw);
            continue;
          }
          assertProblem(answer, 'INVALID_REQUEST');
          assert.match(answer.body.detail as string, detail);
        }
        const noToken = await pageCall(provider.app, `${launch.path}/api/play`, { bet: '1', chancePct: 50, clientSeed: 'x' });
        assertProblem(noToken, 'INVALID_REQUEST');
      });
    });

    // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
    describe('free rounds', () => {
      test('a campaign from the back office is played with campaign {id, type: freeBets, finished} on its transactions', async () => {
        const playerId = await newPlayer({ balance: 10 });
        const campaignId = randomUUID();
        const created = await adminCall(provider.app, 'POST', '/admin/campaigns', {
          id: campaignId,
          operatorId: 'local-demo-operator',
          game: 'dice',
          currency: 'EUR',
          betAmount: 2,
          rounds: 3,
          players: [playerId],
        });
        assert.equal(created.status, 201, created.raw);
        const launch = await launchReal({ playerId });
        const opened = await open(launch);
        assert.deepEqual(opened.body.freeRounds, { campaignId, left: 3, bet: '2' });
        let balance = 1000n; // minor units
        for (let i = 0; i < 3; i++) {
          const answer = await play(launch, { free: true, bet: '2' });
          assert.equal(answer.status, 200, answer.raw);
          const round = answer.body.round as { free: boolean; win: string; bet: string };
          assert.equal(round.free, true);
          assert.equal(round.bet, '2');
          balance += BigInt(Math.round(Number(round.win) * 100)); // the free bet itself costs the player nothing
          assert.equal(answer.body.balance, (Number(balance) / 100).toString());
          assert.deepEqual(answer.body.freeRounds, i < 2 ? { campaignId, left: 2 - i, bet: '2' } : null);
        }
        assertProblem(await play(launch, { free: true }), 'CAMPAIGN_FINISHED');
        const rows = await provider.store.listRounds(3);
        assert.deepEqual(rows.map((row) => row.campaignFinished).reverse(), [false, false, true]);
        for (const row of rows) {
          assert.deepEqual(JSON.parse(row.requestBody!).campaign, { id: campaignId, type: 'freeBets', finished: row.campaignFinished });
        }
        const ledger = await admin(op.app, 'GET', `/admin/players/${playerId}/transactions?limit=50`);
        const freeBets = (ledger.body.items as { kind: string; freeBet: boolean; campaignId: string }[]).filter((item) => item.kind === 'bet');
        assert.equal(freeBets.length, 3);
        assert.ok(freeBets.every((item) => item.freeBet && item.campaignId === campaignId));
        assert.equal(await balanceOf(op.app, playerId), Number(balance) / 100);
        const status = await adminCall(provider.app, 'GET', `/admin/campaigns/${campaignId}`);
        assert.deepEqual((status.body.players as unknown[])[0], { playerId, roundsUsed: 3 });
      });

      test("two launches of one player playing a campaign's last free round at once: one round is played, the other refused, and the campaign is not exceeded", async () => {
        const playerId = await newPlayer({ balance: 10 });
        const campaignId = randomUUID();
        const created = await adminCall(provider.app, 'POST', '/admin/campaigns', {
          id: campaignId,
          operatorId: 'local-demo-operator',
          game: 'dice',
          currency: 'EUR',
          betAmount: 2,
          rounds: 1,
          players: [playerId],
        });
        assert.equal(created.status, 201, created.raw);
        const launches = [await launchReal({ playerId }), await launchReal({ playerId })];
        for (const launch of launches) assert.deepEqual((await open(launch)).body.freeRounds, { campaignId, left: 1, bet: '2' });
        // Each launch has its own queue: both plan the round on the same reading of the campaign (the first two reads wait for each other).
        const { store } = provider;
        const read = store.campaignRoundsUsed.bind(store);
        let reads = 0;
        let bothRead!: () => void;
        const planned = new Promise<void>((resolve) => (bothRead = resolve));
        store.campaignRoundsUsed = async (...args) => {
          const used = await read(...args);
          if (++reads === 2) bothRead();
          await planned;
          return used;
        };
        let answers;
        try {
          answers = await Promise.all(launches.map((launch) => play(launch, { free: true, bet: '2' })));
        } finally {
          store.campaignRoundsUsed = read;
        }
        const played = answers.filter((answer) => answer.status === 200);
        assert.equal(played.length, 1, answers.map((answer) => answer.raw).join('\n'));
        // The later write finds the round taken: nothing of it is written, and the player may try again.
        assertProblem(
          answers.find((answer) => answer.status !== 200)!,
          'SERVICE_UNAVAILABLE',
          10,
        );
        const rows = (await provider.store.listRounds(50)).filter((row) => row.campaignId === campaignId);
        assert.deepEqual(
          rows.map((row) => row.campaignFinished),
          [true],
        );
        const ledger = await admin(op.app, 'GET', `/admin/players/${playerId}/transactions?limit=50`);
        assert.equal((ledger.body.items as { kind: string }[]).filter((item) => item.kind === 'bet').length, 1);
        // Nothing is left to try again: the campaign is finished for either launch.
        assertProblem(await play(launches[0]!, { free: true }), 'CAMPAIGN_FINISHED');
      });

      test('409 CAMPAIGN_FINISHED: a free round without a campaign', async () => {
        const launch = await launchReal();
        await open(launch);
        assertProblem(await play(launch, { free: true }), 'CAMPAIGN_FINISHED', 100);
      });
    });

    describe('fun mode', () => {
      test('plays for play money held by the provider; no call reaches the operator', async () => {
        const before = operatorCalls.length;
        const launch = await launchFun();
        const opened = await open(launch);
        assert.equal(opened.status, 200, opened.raw);
        assert.equal(opened.body.mode, 'fun');
        assert.equal(opened.body.balance, '1000');
        assert.equal(opened.body.refreshIntervalMs, null);
        let balance = 100_000n;
        for (let i = 0; i < 20; i++) {
          const answer = await play(launch, { bet: '5', chancePct: 25 });
          assert.equal(answer.status, 200, answer.raw);
          const round = answer.body.round as { win: string };
          balance += BigInt(Math.round(Number(round.win) * 100)) - 500n;
          assert.equal(answer.body.balance, (Number(balance) / 100).toString());
        }
        assertProblem(await play(launch, { free: true }), 'CAMPAIGN_FINISHED');
        assert.equal(operatorCalls.length, before, `the operator was called: ${operatorCalls.slice(before).join(', ')}`);
      });

      test('a fun launch that names a currency plays in it, for the play money converted at the rates', async () => {
        const before = operatorCalls.length;
        const answer = await operatorCall(provider.app, '/generate-launch-url', { mode: 'fun', game: 'dice', language: 'en', currency: 'JPY' });
        assert.equal(answer.status, 200, answer.raw);
        const launch = { playerId: '', ...launchOf(answer.body.url as string) };
        const opened = await open(launch);
        assert.equal(opened.status, 200, opened.raw);
        assert.equal(opened.body.currency, 'JPY');
        assert.equal(opened.body.balance, '200000'); // 1000 EUR at 160, to the nearest nice amount
        // 100 JPY is on dice's JPY ladder (0.50 EUR at 160 is 80, nicely 100); 1 EUR is not a JPY amount.
        assertProblem(await play(launch, { bet: '1' }), 'INVALID_REQUEST');
        let balance = 200_000n;
        for (let i = 0; i < 5; i++) {
          const round = await play(launch, { bet: '100', chancePct: 50 });
          assert.equal(round.status, 200, round.raw);
          balance += BigInt((round.body.round as { win: string }).win) - 100n;
          assert.equal(round.body.balance, balance.toString());
        }
        assert.equal(operatorCalls.length, before, `the operator was called: ${operatorCalls.slice(before).join(', ')}`);
      });

      test('402 INSUFFICIENT_FUNDS: a fun bet over the play-money balance, with the balance', async () => {
        // A provider whose play money is 50.00: a bet of 100 cannot be covered, whatever the rolls.
        const poor = await makeProvider({ edit: (file) => (file.fun = { currency: 'EUR', balance: '50' }), backend: backend.name });
        try {
          const answer = await operatorCall(poor.app, '/generate-launch-url', { mode: 'fun', game: 'dice', language: 'en' });
          const launch = launchOf(answer.body.url as string);
          assert.equal((await pageCall(poor.app, `${launch.path}/api/open`, { token: launch.token })).status, 200);
          const play100 = () => pageCall(poor.app, `${launch.path}/api/play`, { token: launch.token, bet: '100', chancePct: 10, clientSeed: 'x' });
          assertProblem(await play100(), 'INSUFFICIENT_FUNDS', 50);
          assert.deepEqual(await poor.store.listRounds(10), [], 'a refused fun round leaves no trace');
          const small = await pageCall(poor.app, `${launch.path}/api/play`, { token: launch.token, bet: '50', chancePct: 10, clientSeed: 'x' });
          assert.equal(small.status, 200, small.raw);
        } finally {
          await poor.close();
        }
      });

      test('403 SESSION_EXPIRED: a fun session left idle', async () => {
        const launch = await launchFun();
        await open(launch);
        provider.clock.advance(provider.config.limits.sessionIdleMs + 1);
        assertProblem(await play(launch), 'SESSION_EXPIRED', 1000);
      });
    });

    /** The launch id inside a token, opened with the provider's own secret. */
    function launchClaimsId(launch: Launch): string {
      return launchTokens(provider.config.launchTokenSecrets, randomBytes).open(launch.token)!.launchId;
    }
  });
}
