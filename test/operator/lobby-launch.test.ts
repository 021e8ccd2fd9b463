/**
 * Proves the sandbox lobby's launches (POST /lobby/api/launch,
 * docs/sandbox.md) against a real provider listening on a socket, on every
 * operator backend: Demo plays in the currency the lobby names or in the
 * player's, which travel to the provider's /generate-launch-url and into
 * the launch, whose page opens with the play money converted into it; a
 * currency no game has bets in at the operator is refused 422
 * UNSUPPORTED_CURRENCY, as for real play; a currency other than the named
 * player's is refused 400, in either mode; a Demo naming nothing plays in
 * the provider's play-money currency.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { registerLobby } from '../../src/operator/lobby-routes.js';
import { OperatorService } from '../../src/operator/operator-service.js';
import { launchTokens } from '../../src/provider/launch-token.js';
import { makeOperator, OPERATOR_BACKENDS, SECRET, type Operator } from '../helpers.js';
import { launchOf, makeProvider, OPERATOR_ID, pageCall, WALLET_ID, type Provider } from '../provider/provider-helpers.js';

interface Answer {
  status: number;
  body: Record<string, unknown>;
  raw: string;
}

for (const backend of OPERATOR_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
  describe(`the lobby's launches, in the player's currency (${backend.name})`, { skip: backend.unavailable }, () => {
    let op: Operator;
    let provider: Provider;

    before(async () => {
      provider = await makeProvider();
      // The lobby reaches the provider over a socket; the launch's page is opened in-process (its URL's host is not called).
      const providerUrl = await provider.app.listen({ host: '127.0.0.1', port: 0 });
      op = await makeOperator({ backend: backend.name });
      const service = new OperatorService(op.store, { clock: () => op.clock.now, newId: () => randomUUID(), newLaunchKey: () => randomUUID() });
      await registerLobby(op.app, {
        service,
        link: { providerUrl, operatorId: OPERATOR_ID, walletId: WALLET_ID, secret: SECRET },
        games: [{ slug: 'dice', title: 'Lucky Dice', kind: 'dice' }],
        lobbyUrl: 'http://127.0.0.1:8080/lobby/',
        limits: { callsPerAddressMax: 10_000, windowMs: 3_600_000 },
      });
      for (const [playerId, currency] of [
        ['bob', 'USD'],
        ['chika', 'JPY'],
      ] as const) {
        assert.ok((await service.createPlayer({ playerId, currency, balance: 0, country: 'US' })).ok);
      }
    });
    after(async () => {
      await op?.close();
      await provider?.close();
    });

    async function launch(body: Record<string, unknown>): Promise<Answer> {
      const response = await op.app.inject({
        method: 'POST',
        url: '/lobby/api/launch',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
      return { status: response.statusCode, body: response.json(), raw: response.body };
    }

    /** What the launch's page opens with: its mode, currency and balance. */
    async function opened(answer: Answer): Promise<{ mode: unknown; currency: unknown; balance: unknown; claimed: string | undefined }> {
      assert.equal(answer.status, 200, answer.raw);
      const { path, token } = launchOf(answer.body.url as string);
      const page = await pageCall(provider.app, `${path}/api/open`, { token });
      assert.equal(page.status, 200, page.raw);
      const claimed = launchTokens(provider.config.launchTokenSecrets, randomBytes).open(token)?.currency;
      return { mode: page.body.mode, currency: page.body.currency, balance: page.body.balance, claimed };
    }

    test('Demo in the currency the lobby names: the play money converted into it', async () => {
      assert.deepEqual(await opened(await launch({ game: 'dice', mode: 'fun', currency: 'JPY' })), {
        mode: 'fun',
        currency: 'JPY',
        balance: '200000',
        claimed: 'JPY',
      });
      assert.deepEqual(await opened(await launch({ game: 'dice', mode: 'fun', currency: 'USD' })), {
        mode: 'fun',
        currency: 'USD',
        balance: '1000',
        claimed: 'USD',
      });
    });

    test("Demo for a player plays in the player's currency", async () => {
      assert.deepEqual(await opened(await launch({ game: 'dice', mode: 'fun', playerId: 'chika' })), {
        mode: 'fun',
        currency: 'JPY',
        balance: '200000',
        claimed: 'JPY',
      });
    });

    test("Demo naming nothing plays in the provider's play-money currency", async () => {
      assert.deepEqual(await opened(await launch({ game: 'dice', mode: 'fun' })), { mode: 'fun', currency: 'EUR', balance: '1000', claimed: undefined });
    });

    test('a currency no game has bets in at the operator is refused 422, as for real play', async () => {
      const answer = await launch({ game: 'dice', mode: 'fun', currency: 'SEK' });
      assert.equal(answer.status, 422, answer.raw);
      assert.equal(answer.body.code, 'UNSUPPORTED_CURRENCY');
      assert.equal(answer.body.detail, `the provider refused: game dice has no bet ladder for SEK at operator ${OPERATOR_ID}`);
    });

    test("a currency other than the player's is refused 400, for fun and for real money", async () => {
      for (const mode of ['fun', 'real']) {
        const answer = await launch({ game: 'dice', mode, playerId: 'bob', currency: 'EUR' });
        assert.equal(answer.status, 400, answer.raw);
        assert.equal(answer.body.code, 'INVALID_REQUEST');
        assert.equal(answer.body.detail, 'currency: player bob plays in USD, not EUR');
      }
      const missing = await launch({ game: 'dice', mode: 'fun', playerId: 'nobody', currency: 'USD' });
      assert.equal(missing.status, 404, missing.raw);
      assert.equal(missing.body.code, 'PLAYER_NOT_FOUND');
    });
  });
}
