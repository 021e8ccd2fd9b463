/**
 * The provider's GET /admin/verify, on every provider store backend: it
 * answers the store's verdict, the one `wagerlink provider verify --json`
 * prints, in the shape the OpenAPI document gives; records altered past
 * the store answer 200 with `ok: false` and the finding, naming the round
 * and its item; only an admin of every operator may ask (every other role,
 * and an admin scoped to some operators, is 403 FORBIDDEN; no token 401);
 * and on SQLite, whose verify reads in a thread of its own, a file that
 * cannot be read is a 503 SERVICE_UNAVAILABLE saying why, and the next
 * verify works again.
 */
import { renameSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import postgres from 'postgres';
import type Database from 'better-sqlite3';
import type { Role } from '../../src/access/roles.js';
import { CLAIM_LIMITS } from '../../src/dispatch/outbox.js';
import { ProviderVerifyResponse } from '../../src/provider/provider-schemas.js';
import type { RoundRow } from '../../src/provider/store/provider-store.js';
import { diceRoundBody } from '../../src/rounds/bodies.js';
import { adminCall, assertProblem, makeProvider, OPERATOR_ID, PROVIDER_BACKENDS, type Provider } from './provider-helpers.js';
import { begun, realRound, realSession, sealedNext, SEED } from './store/store-fixtures.js';

const VERDICT = TypeCompiler.Compile(ProviderVerifyResponse);

/** Runs one statement on the provider's database past its store: another client on PostgreSQL, the store's own connection on SQLite. */
function alterer(provider: Provider): { sql: (statement: string) => Promise<void>; close: () => Promise<void> } {
  const url = provider.config.database;
  if (url.startsWith('postgres')) {
    const client = postgres(url, { max: 1, onnotice: () => {} });
    return { sql: async (statement) => void (await client.unsafe(statement)), close: () => client.end({ timeout: 5 }) };
  }
  // A second connection would wait, on this very thread, for the store's open write to end.
  const db = (provider.store as unknown as { db: Database.Database }).db;
  return { sql: async (statement) => void db.exec(statement), close: async () => undefined };
}

for (const backend of PROVIDER_BACKENDS) {
  // eslint-disable-next-line max-lines-per-function -- a test suite that only groups its cases
  describe(`GET /admin/verify (${backend.name})`, { skip: backend.unavailable }, () => {
    let provider: Provider;
    let database: ReturnType<typeof alterer>;
    /** Rounds played and delivered: settled, with their items sent. */
    const rounds: RoundRow[] = [];
    const tokens = new Map<string, string>();

    const verify = (token?: string) => adminCall(provider.app, 'GET', '/admin/verify', undefined, token);
    const staffToken = async (name: string, role: Role, operators?: string[]) => {
      const made = await adminCall(provider.app, 'POST', '/admin/staff', { name, role, ...(operators === undefined ? {} : { operators }) });
      assert.equal(made.status, 201, made.raw);
      return made.body.token as string;
    };

    before(async () => {
      provider = await makeProvider({ backend: backend.name, deliver: false });
      database = alterer(provider);
      const session = await realSession(provider.store, { operatorId: OPERATOR_ID, now: provider.clock.now });
      for (let nonce = 0; nonce < 3; nonce++) {
        const round = realRound(session, nonce, provider.clock.now);
        const written = await provider.store.beginRealRound({ ...round, requestBody: diceRoundBody(round, session, 2) }, sealedNext(SEED));
        rounds.push(begun(written));
      }
      await provider.store.durable();
      const now = provider.clock.now;
      for (const item of await provider.store.outbox.claim(now + 60_000, 'node', CLAIM_LIMITS)) {
        await provider.store.outbox.sent(item.id, 'node', { status: 200, detail: 'HTTP 200', balance: '90' }, now + 1);
      }
      await provider.store.durable();
      for (const role of ['read-only', 'support', 'payments', 'admin'] as const) tokens.set(role, await staffToken(`verifier-${role}`, role));
      tokens.set('scoped admin', await staffToken('verifier-scoped-admin', 'admin', [OPERATOR_ID]));
    });
    after(async () => {
      await database.close();
      await provider.close();
    });

    test("the records agree: 200 with the store's verdict, everything counted, in the documented shape", async () => {
      const answer = await verify();
      assert.equal(answer.status, 200, answer.raw);
      assert.equal(answer.headers['content-type'], 'application/json; charset=utf-8');
      assert.ok(VERDICT.Check(answer.body), [...VERDICT.Errors(answer.body)].map((error) => `${error.path}: ${error.message}`).join('\n'));
      assert.deepEqual(answer.body, JSON.parse(JSON.stringify(await provider.store.verify())));
      assert.equal(answer.body.ok, true, answer.raw);
      assert.deepEqual(answer.body.counted, { rounds: 3, realRounds: 3, items: 3, payouts: 0, pools: 0, campaignUses: 0 });
    });

    test('only an admin of every operator may verify: every other role, and a scoped admin, is 403 FORBIDDEN; no token is 401', async () => {
      for (const role of ['read-only', 'support', 'payments', 'scoped admin']) {
        const answer = await verify(tokens.get(role)!);
        assertProblem(answer, 'FORBIDDEN');
        assert.match(String(answer.body.detail), role === 'scoped admin' ? /every operator/ : /takes the admin role/, `${role}: ${answer.raw}`);
      }
      assert.equal((await verify(tokens.get('admin')!)).status, 200);
      const anonymous = await provider.app.inject({ method: 'GET', url: '/admin/verify' });
      assert.equal(anonymous.statusCode, 401);
    });

    test('a round altered past the store: 200 with ok false and the finding, naming the round and its item', async () => {
      const round = rounds[0]!;
      await database.sql(`UPDATE rounds SET status = 'refused' WHERE id = ${round.pk}`);
      try {
        const answer = await verify();
        assert.equal(answer.status, 200, answer.raw);
        assert.ok(VERDICT.Check(answer.body), answer.raw);
        assert.equal(answer.body.ok, false);
        assert.deepEqual(answer.body.totals, { 'round-status': 1 });
        const [finding] = answer.body.findings as { kind: string; ids: string[]; sentence: string }[];
        assert.deepEqual(finding!.ids, [`round:${round.roundId}`, `item:${round.dispatchItemId}`]);
        assert.match(finding!.sentence, /is refused but its outbox item \d+ is sent, which makes it settled/);
      } finally {
        await database.sql(`UPDATE rounds SET status = 'settled' WHERE id = ${round.pk}`);
      }
      assert.equal((await verify()).body.ok, true);
    });

    if (backend.name === 'sqlite') {
      test('a file the verify cannot read is a 503 saying why; the next verify reads again', async () => {
        const path = provider.config.database;
        renameSync(path, `${path}.away`);
        try {
          const answer = await verify();
          assertProblem(answer, 'SERVICE_UNAVAILABLE');
          assert.match(String(answer.body.detail), /^verify could not finish: .*unable to open database file/, answer.raw);
        } finally {
          renameSync(`${path}.away`, path);
        }
        assert.equal((await verify()).body.ok, true);
      });
    }
  });
}
