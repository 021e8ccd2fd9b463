/**
 * Proves the provider client (src/clients/provider-client.ts) against a real
 * provider on a real socket: launch URLs and bet ladders come back typed and
 * exact, and each refusal arrives with its code; an answer that is not the
 * protocol is an invalid answer.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { MockAgent } from 'undici';
import { NO_RETRY } from '../../src/clients/http-call.js';
import { createProviderClient, type ProviderClient } from '../../src/clients/provider-client.js';
import { SECRET } from '../helpers.js';
import { makeProvider, OPERATOR_ID, realLaunchBody, WALLET_ID, type Provider } from '../provider/provider-helpers.js';

let provider: Provider;
let client: ProviderClient;
let origin: string;

before(async () => {
  provider = await makeProvider();
  origin = await provider.app.listen({ host: '127.0.0.1', port: 0 });
  client = createProviderClient({ endpoint: origin, secret: SECRET });
});

after(async () => {
  await client.close();
  await provider.close();
});

test('generateLaunchUrl answers the URL', async () => {
  const answer = await client.generateLaunchUrl(realLaunchBody() as Parameters<ProviderClient['generateLaunchUrl']>[0]);
  assert.ok(answer.ok, JSON.stringify(answer));
  assert.match(answer.value.url, /^http:\/\/127\.0\.0\.1:8090\/game\/dice#v1\./);
  const fun = await client.generateLaunchUrl({ mode: 'fun', game: 'dice-high-roller', language: 'fr' });
  assert.ok(fun.ok && fun.value.url.includes('/game/dice-high-roller#'));
});

test('gameBets answers exact decimal text per game and currency, in order', async () => {
  const answer = await client.gameBets({ walletId: WALLET_ID, operatorId: OPERATOR_ID, games: ['dice'], currencies: ['EUR', 'BTC', 'JPY'] });
  assert.ok(answer.ok, JSON.stringify(answer));
  assert.deepEqual(answer.value.dice!.EUR, ['0.1', '0.2', '0.5', '1', '2', '5', '10', '20', '50', '100']);
  assert.deepEqual(answer.value.dice!.BTC!.slice(0, 3), ['0.000002', '0.0000025', '0.00001']);
  assert.deepEqual(answer.value.dice!.JPY!.slice(0, 2), ['20', '25']);
});

test('refusals arrive typed with their code', async () => {
  const game = await client.generateLaunchUrl(realLaunchBody({ game: 'poker' }) as Parameters<ProviderClient['generateLaunchUrl']>[0]);
  assert.ok(!game.ok && game.kind === 'refused' && game.code === 'GAME_NOT_FOUND' && game.status === 404);
  const currency = await client.gameBets({ walletId: WALLET_ID, operatorId: OPERATOR_ID, games: ['dice'], currencies: ['NOK'] });
  assert.ok(!currency.ok && currency.kind === 'refused' && currency.code === 'UNSUPPORTED_CURRENCY' && currency.status === 422);
  const stranger = createProviderClient({ endpoint: origin, secret: 'wrong', retry: NO_RETRY });
  try {
    const signature = await stranger.gameBets({ walletId: WALLET_ID, operatorId: OPERATOR_ID, games: ['dice'], currencies: ['EUR'] });
    assert.ok(!signature.ok && signature.kind === 'refused' && signature.code === 'INVALID_SIGNATURE');
  } finally {
    await stranger.close();
  }
});

test('an answer that is not the protocol is an invalid answer', async () => {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get('http://provider.test');
  const json = { headers: { 'content-type': 'application/json' } };
  pool.intercept({ path: '/game-bets', method: 'POST' }).reply(200, '{"dice":{"EUR":[0.1,0.12345678901234567]}}', json);
  pool.intercept({ path: '/game-bets', method: 'POST' }).reply(200, '{"dice":{"EUR":"0.1"}}', json);
  pool.intercept({ path: '/generate-launch-url', method: 'POST' }).reply(200, '{"link":"x"}', json);
  const mocked = createProviderClient({ endpoint: 'http://provider.test', secret: SECRET, dispatcher: agent });
  try {
    for (let i = 0; i < 2; i++) {
      const bets = await mocked.gameBets({ walletId: 'w', operatorId: 'o', games: ['dice'], currencies: ['EUR'] });
      assert.ok(!bets.ok && bets.kind === 'invalid-answer', JSON.stringify(bets));
    }
    const url = await mocked.generateLaunchUrl({ mode: 'fun', game: 'dice', language: 'en' });
    assert.ok(!url.ok && url.kind === 'invalid-answer');
  } finally {
    await mocked.close();
    await agent.close();
  }
});
