/**
 * Proves that every failure a client meets while PostgreSQL fails over
 * means "unavailable" (503, the caller resends), one test per code, and
 * that errors of the call itself do not. The codes are those seen here on
 * a pg_auto_failover switch (test/platform/postgres/failover.test.ts) and
 * on a primary's restart: the lost connection, the refused and timed-out
 * connection attempts, the server still starting up, the backend
 * terminated by a demotion, and a write on a standby.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClaimLostError, isRetryable, isUnavailable } from '../../../src/platform/postgres/errors.js';

/** An error as postgres.js hands it on: a server's has a SQLSTATE as code, the client's own a name such as CONNECTION_CLOSED. */
function failure(code: string, message = 'failed'): Error {
  return Object.assign(new Error(message), { code });
}

const DURING_A_SWITCH: [code: string, what: string][] = [
  ['57P01', 'admin_shutdown: a backend terminated by the demotion of the old primary, or a fast shutdown'],
  ['57P02', 'crash_shutdown: another backend crashed and the postmaster reset the server'],
  ['57P03', 'cannot_connect_now: "the database system is starting up", or in recovery, after a restart'],
  ['25006', 'read_only_sql_transaction: a write on a standby'],
  ['08006', 'connection_failure'],
  ['08001', 'sqlclient_unable_to_establish_sqlconnection'],
  ['CONNECTION_CLOSED', "the driver's connection closed with queries in flight"],
  ['CONNECTION_DESTROYED', "the driver's connection ended while a query waited on it"],
  ['CONNECT_TIMEOUT', 'no host answered a connection attempt in connect_timeout'],
  ['ECONNREFUSED', 'the lost primary: nothing listens on its port'],
  ['ECONNRESET', 'the server went away in the middle of a read'],
];

describe('failures during a failover mean unavailable', () => {
  for (const [code, what] of DURING_A_SWITCH) {
    test(`${code} (${what}) is unavailable and not retried by the node`, () => {
      assert.equal(isUnavailable(failure(code)), true);
      // The node does not run it again itself: the caller resends, and the idempotency rules answer.
      assert.equal(isRetryable(failure(code)), false);
    });
  }
});

describe('errors of the call itself are not unavailability', () => {
  for (const code of ['23505', '42P01', '22003', '42601', 'ERR_ASSERTION']) {
    test(`${code} is not unavailable`, () => {
      assert.equal(isUnavailable(failure(code)), false);
    });
  }

  test('an error without a code is not unavailable', () => {
    assert.equal(isUnavailable(new Error('no code')), false);
    assert.equal(isUnavailable(undefined), false);
  });

  test('a claim lost to a concurrent call is retried, and unavailable once retries are spent', () => {
    assert.equal(isRetryable(new ClaimLostError('lost')), true);
    assert.equal(isUnavailable(new ClaimLostError('lost')), true);
  });
});
