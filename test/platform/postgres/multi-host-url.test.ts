/**
 * Proves that a multi-host PostgreSQL URL, as a client of a failover
 * formation is given (`postgres://wallet@db1:5432,db2:5432/wallet?
 * target_session_attrs=read-write`), goes through our URL handling whole:
 * a schema is set in its query without losing a host or a parameter, its
 * parameters are read, and its password is never shown. `new URL()`
 * refuses that form, so none of these may use it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { urlInSchema } from '../../../src/platform/postgres/open-database.js';
import { redactUrl, urlParameter, withUrlParameter } from '../../../src/platform/postgres/settings.js';

const MULTI_HOST = 'postgres://wallet:s3cret@db1:5432,db2:5433/wallet?target_session_attrs=read-write&sslmode=disable';

test('new URL() refuses a multi-host URL, which is why our helpers do without it', () => {
  assert.throws(() => new URL(MULTI_HOST), TypeError);
});

test('a schema is set in a multi-host URL, keeping every host and parameter', () => {
  assert.equal(
    urlInSchema(MULTI_HOST, 'wallet_a'),
    'postgres://wallet:s3cret@db1:5432,db2:5433/wallet?target_session_attrs=read-write&sslmode=disable&search_path=wallet_a',
  );
  // Set again, it replaces the old value rather than adding a second one.
  assert.equal(urlParameter(urlInSchema(urlInSchema(MULTI_HOST, 'a'), 'b'), 'search_path'), 'b');
  assert.equal(withUrlParameter('postgres://db1,db2/w', 'search_path', 's'), 'postgres://db1,db2/w?search_path=s');
  assert.throws(() => urlInSchema(MULTI_HOST, 'Bad-Name'), /schema/);
});

test('a parameter of a multi-host URL is read, and an absent one is null', () => {
  assert.equal(urlParameter(MULTI_HOST, 'target_session_attrs'), 'read-write');
  assert.equal(urlParameter(MULTI_HOST, 'search_path'), null);
  assert.equal(urlParameter('postgres://db1:5432,db2:5432/w', 'search_path'), null);
});

test('the password of a multi-host URL is never shown', () => {
  assert.equal(redactUrl(MULTI_HOST), 'postgres://wallet:***@db1:5432,db2:5433/wallet?target_session_attrs=read-write&sslmode=disable');
  assert.equal(redactUrl('postgres://wallet@db1:5432,db2:5432/wallet'), 'postgres://wallet@db1:5432,db2:5432/wallet');
  assert.equal(redactUrl('postgres://db1:5432,db2:5432/wallet'), 'postgres://db1:5432,db2:5432/wallet');
});
