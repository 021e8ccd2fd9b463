/**
 * Proves the sandbox lobby's list of players (GET /lobby/api/players,
 * docs/sandbox.md) on every backend, registered as the sandbox registers it
 * with the conformance kit's id prefix hidden: page after page, it lists
 * every other player in id order, those just before, just after and
 * between the kit's ids among them, and none of the kit's, however many
 * pages of them lie between (a page may come back short, with its cursor,
 * and reading on loses nothing); a kit's player still opens by its id, and
 * the back office still lists them all.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KIT_PLAYER_PREFIX } from '../../src/conformance/fixtures.js';
import { registerLobby } from '../../src/operator/lobby-routes.js';
import { OperatorService } from '../../src/operator/operator-service.js';
import { admin, makeOperator, OPERATOR_BACKENDS, type Operator } from '../helpers.js';

/** Around and between the kit's ids in code-point order: "conformance" and "conformancez" sort on either side of "conformance-". */
const PLAYERS = ['alice', 'conformance', 'conformancez', 'dave', 'zed'];
/** More of the kit's players than one call reads past with pages of two (LIST_READS_MAX reads). */
const KIT_PLAYERS = [KIT_PLAYER_PREFIX, ...Array.from({ length: 45 }, (_, i) => `${KIT_PLAYER_PREFIX}0a1b2c3d-${String(i + 1).padStart(2, '0')}`)];

for (const backend of OPERATOR_BACKENDS) {
  describe(`the lobby's players, without the conformance kit's (${backend.name})`, { skip: backend.unavailable }, () => {
    let op: Operator;

    before(async () => {
      op = await makeOperator({ backend: backend.name });
      const service = new OperatorService(op.store);
      await registerLobby(op.app, {
        service,
        // No provider: the list never reaches one.
        link: { providerUrl: 'http://127.0.0.1:9', operatorId: 'op', walletId: 'wallet', secret: 'unused' },
        games: [],
        lobbyUrl: 'http://127.0.0.1:9/lobby/',
        limits: { callsPerAddressMax: 10_000, windowMs: 3_600_000 },
        hiddenPlayerPrefixes: [KIT_PLAYER_PREFIX],
      });
      for (const playerId of [...PLAYERS, ...KIT_PLAYERS]) {
        const made = await service.createPlayer({ playerId, currency: 'EUR', balance: 0 });
        assert.ok(made.ok, playerId);
      }
    });
    after(async () => op.close());

    async function page(query: string): Promise<{ items: { playerId: string }[]; nextCursor: string | null }> {
      const response = await op.app.inject({ method: 'GET', url: `/lobby/api/players${query}` });
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    }

    test("page after page, every player in id order but the kit's", async () => {
      for (const limit of [2, 50]) {
        const seen: string[] = [];
        const shortPages: number[] = [];
        let cursor: string | null = null;
        for (let pages = 0; pages < 100; pages++) {
          const answer = await page(`?limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
          seen.push(...answer.items.map((item) => item.playerId));
          if (answer.nextCursor !== null && answer.items.length < limit) shortPages.push(pages);
          cursor = answer.nextCursor;
          if (cursor === null) break;
        }
        assert.equal(cursor, null, 'the list ends');
        assert.deepEqual(seen, PLAYERS, `limit ${limit}`);
        // 46 of the kit's players between two pages of two take more reads than one call makes.
        if (limit === 2) assert.ok(shortPages.length > 0, 'a page came back short, with its cursor');
        else assert.deepEqual(shortPages, []);
      }
    });

    test("a kit's player opens by its id, and the back office lists them all", async () => {
      const one = await op.app.inject({ method: 'GET', url: `/lobby/api/players/${encodeURIComponent(KIT_PLAYERS[1]!)}` });
      assert.equal(one.statusCode, 200, one.body);
      const listed = await admin(op.app, 'GET', `/admin/players?limit=500&prefix=${encodeURIComponent(KIT_PLAYER_PREFIX)}`);
      assert.deepEqual(
        (listed.body.items as { playerId: string }[]).map((item) => item.playerId),
        KIT_PLAYERS,
      );
    });
  });
}
