/** Proves the wallet's main path end to end through app.inject(), on every backend: bet, win, replay. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { balanceOf, makeOperator, OPERATOR_BACKENDS, playerWithSession, transactionBody, tx, wallet } from '../helpers.js';

for (const backend of OPERATOR_BACKENDS) {
  describe(`smoke (${backend.name})`, { skip: backend.unavailable }, () => {
    test('a round of bet and win moves the balance exactly and replays answer the same', async () => {
      const op = await makeOperator({ backend: backend.name });
      try {
        const p = await playerWithSession(op.app, { balance: 10 });
        const body = transactionBody(p, [tx('bet', 0.1), tx('win', 0.3)]);
        const first = await wallet(op.app, '/transaction', body);
        assert.equal(first.status, 200, first.raw);
        assert.equal(first.raw, '{"balance":10.2}');
        const again = await wallet(op.app, '/transaction', body);
        assert.equal(again.raw, '{"balance":10.2}');
        assert.equal(await balanceOf(op.app, p.playerId), 10.2);
        assert.ok((await op.store.verify()).ok);
      } finally {
        await op.close();
      }
    });
  });
}
