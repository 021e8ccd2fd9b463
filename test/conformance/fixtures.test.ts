/**
 * Proves how the kit reads its fixtures: the example file of the
 * repository loads; a file that breaks the format is refused naming the
 * member; settings that cannot work are refused before a run (players with
 * an admin token, no key for a player, expiry with listed keys only, a
 * block command without its unblock); and a command's output gives a key
 * whether it prints the key alone or JSON with `key`.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'undici';
import { REAL_CLIENT_WORLD } from '../../src/clients/http-call.js';
import { fixtureSource, fixturesFromJson, FixturesError, keyFromOutput, loadFixturesFile, type FixturesFile } from '../../src/conformance/fixtures.js';

const ROOT = new URL('../../../', import.meta.url);
const http = { dispatcher: new Agent(), answerMsMax: 1_000, world: REAL_CLIENT_WORLD };

test('the example fixtures file loads', async () => {
  const file = await loadFixturesFile(new URL('examples/conformance-fixtures.json', ROOT).pathname);
  assert.ok((file.players?.length ?? 0) >= 2);
  const source = fixtureSource({ file: { content: file, origin: 'example' } }, 'http://127.0.0.1:8080', http);
  assert.equal(source.games.length, 2);
  assert.equal(source.canBlock, true);
  assert.equal(source.expiry, undefined);
});

test('a file that breaks the format is refused, naming the member', () => {
  const refused: [unknown, RegExp][] = [
    [{ games: 'dice' }, /games/],
    [{ players: [{ playerId: 'p', currency: 'eur' }] }, /players\[0\]\.currency/],
    [{ players: [{ playerId: 'p', currency: 'EUR', balance: 10 }] }, /players\[0\]/],
    [{ players: [{ playerId: 'p', currency: 'XYZ' }] }, /no decimals for XYZ/],
    [{ expiry: { launchKeySeconds: 0, sessionIdleSeconds: 5 } }, /expiry\.launchKeySeconds/],
    [{ expiry: { launchKeySeconds: 5, sessionIdleSeconds: 5000 } }, /expiry\.sessionIdleSeconds/],
    [{ gmaes: ['dice'] }, /gmaes|additional/i],
  ];
  for (const [value, message] of refused) {
    assert.throws(
      () => fixturesFromJson(value, 'f.json'),
      (error: Error) => error instanceof FixturesError && /^f\.json: /.test(error.message) && message.test(error.message),
      JSON.stringify(value),
    );
  }
});

test('settings that cannot work are refused before a run', () => {
  const source = (content: FixturesFile, adminToken?: string) => () =>
    fixtureSource({ file: { content, origin: 'f.json' }, ...(adminToken === undefined ? {} : { adminToken }) }, 'http://127.0.0.1:1', http);
  const player = { playerId: 'p1', currency: 'EUR' };
  const command = ['wagerlink', 'operator', 'launch-key', '{playerId}', '--game', '{game}'];
  const refused: [() => unknown, RegExp][] = [
    [() => fixtureSource({}, 'http://127.0.0.1:1', http), /--fixtures FILE, --admin-token TOKEN, or both/],
    [source({ games: ['dice'], players: [player] }, 'admin'), /players cannot be used with --admin-token/],
    [source({ games: ['dice'] }), /players is required without --admin-token/],
    [source({ players: [player], launchKeyCommand: command }), /games is required without --admin-token/],
    [source({ games: ['dice'], players: [{ ...player, launchKeys: { slots: ['k'] } }] }), /p1 has no launchKeys for dice/],
    [
      source({ games: ['dice'], players: [{ ...player, launchKeys: { dice: ['k'] } }], expiry: { launchKeySeconds: 1, sessionIdleSeconds: 2 } }),
      /expiry needs launchKeyCommand/,
    ],
    [source({ games: ['dice'], players: [player], launchKeyCommand: command, blockCommand: ['block'] }), /blockCommand and unblockCommand go together/],
  ];
  for (const [make, message] of refused) assert.throws(make, (error: Error) => error instanceof FixturesError && message.test(error.message), String(message));
  // With an admin token alone, the back office makes the players, on the default games.
  const admin = fixtureSource({ adminToken: 'admin' }, 'http://127.0.0.1:1', http);
  assert.deepEqual(admin.games, ['dice', 'dice-high-roller']);
  assert.equal(admin.canBlock, true);
});

test('a command prints the key alone, or JSON with "key"', () => {
  assert.deepEqual(keyFromOutput('abc-123\n'), { ok: true, value: 'abc-123' });
  assert.deepEqual(keyFromOutput('{"key":"q3Z8","expiresAt":"2026-01-01T00:10:00.000Z"}\n'), { ok: true, value: 'q3Z8' });
  for (const output of ['', 'two words', '{"expiresAt":"x"}', '{not json', 'k'.repeat(257)])
    assert.equal(keyFromOutput(output).ok, false, JSON.stringify(output));
});

after(async () => {
  await http.dispatcher.close();
});
