/**
 * Proves that the back office reaches every player id it accepts, and only
 * those (docs/protocol.md §9: a playerId is 1 to 128 characters without control
 * characters), on every backend: ids of 101 to 128 characters, ASCII or
 * percent-encoded to 9 characters each, are created and then read, adjusted,
 * blocked and listed through their :playerId; a control character (U+0000
 * included, which PostgreSQL cannot store) or a 129th character in the
 * parameter is 400 INVALID_REQUEST on every route, never 500; a parameter
 * beyond the router's limit is 414 URI_TOO_LONG.
 */
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ROUTE_PARAM_LENGTH_MAX } from '../../src/http/json-api.js';
import { admin, makeOperator, OPERATOR_BACKENDS, type Operator } from '../helpers.js';

/** Every back-office route with a :playerId, as [method, path of an encoded id, body]. */
function playerRoutes(encodedId: string): ['GET' | 'POST', string, unknown][] {
  return [
    ['GET', `/admin/players/${encodedId}`, undefined],
    ['POST', `/admin/players/${encodedId}/adjustments`, { id: randomUUID(), type: 'deposit', amount: 1 }],
    ['POST', `/admin/players/${encodedId}/block`, undefined],
    ['POST', `/admin/players/${encodedId}/unblock`, undefined],
    ['GET', `/admin/players/${encodedId}/rounds`, undefined],
    ['GET', `/admin/players/${encodedId}/transactions`, undefined],
  ];
}

for (const backend of OPERATOR_BACKENDS) {
  describe(`back-office :playerId parameters (${backend.name})`, { skip: backend.unavailable }, () => {
    let op: Operator;
    before(async () => {
      op = await makeOperator({ backend: backend.name });
    });
    after(async () => op.close());

    test('ids of 101 to 128 characters are reachable on every route, however they are encoded', async () => {
      const unique = randomUUID().replaceAll('-', '');
      const ids = [
        `a${unique}`.padEnd(101, 'x'),
        `b${unique}`.padEnd(128, 'y'),
        // 120 characters of 3 UTF-8 bytes each: 1088 characters once percent-encoded.
        `${'€'.repeat(120)}${unique.slice(0, 8)}`,
        `c${unique} / ?#%&+`.padEnd(128, 'z'),
      ];
      for (const playerId of ids) {
        assert.equal(playerId.length <= 128 && playerId.length >= 101, true);
        const created = await admin(op.app, 'POST', '/admin/players', { playerId, currency: 'EUR', balance: 5 });
        assert.equal(created.status, 201, created.raw);
        for (const [method, path, body] of playerRoutes(encodeURIComponent(playerId))) {
          const answer = await admin(op.app, method, path, body);
          assert.equal(answer.status, 200, `${method} ${path}: ${answer.raw}`);
        }
        const read = await admin(op.app, 'GET', `/admin/players/${encodeURIComponent(playerId)}`);
        assert.equal(read.body.playerId, playerId);
        assert.equal(read.body.balance, 6);
      }
      assert.equal(encodeURIComponent(ids[2]!).length, 1_088);
      assert.ok(encodeURIComponent(ids[2]!).length <= ROUTE_PARAM_LENGTH_MAX);
    });

    test('a control character or a 129th character in :playerId is 400 INVALID_REQUEST on every route', async () => {
      const bad = ['a%00b', '%00', 'a%01b', 'a%1Fb', 'a%7Fb', 'tab%09', 'line%0Afeed', 'x'.repeat(129), '€'.repeat(129)];
      for (const id of bad) {
        const encoded = id.includes('%') ? id : encodeURIComponent(id);
        for (const [method, path, body] of playerRoutes(encoded)) {
          const answer = await admin(op.app, method, path, body);
          assert.equal(answer.status, 400, `${method} ${path}: ${answer.raw}`);
          assert.equal(answer.body.code, 'INVALID_REQUEST');
          assert.match(answer.body.detail as string, /^playerId: /);
        }
      }
    });

    test('the admin token is checked before the parameter', async () => {
      const answer = await op.app.inject({ method: 'GET', url: '/admin/players/a%00b' });
      assert.equal(answer.statusCode, 401);
      assert.equal(answer.json().code, 'INVALID_TOKEN');
    });

    test('a parameter beyond the router limit is 414 URI_TOO_LONG', async () => {
      const answer = await admin(op.app, 'GET', `/admin/players/${'a'.repeat(ROUTE_PARAM_LENGTH_MAX + 1)}`);
      assert.equal(answer.status, 414, answer.raw);
      assert.equal(answer.body.code, 'URI_TOO_LONG');
    });
  });
}
