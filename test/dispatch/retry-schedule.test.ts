/**
 * Proves the outbox's retry schedule (src/dispatch/retry-schedule.ts)
 * against docs/protocol.md §3.3 and §9: the wait before retry n is full
 * jitter in [0, min(60 s, 0.5 s × 2^(n−1))]; a Retry-After in seconds or as
 * an HTTP date is waited for at least, up to a named maximum; network
 * errors, time-outs, 408, 429 and 5xx of the rule are resent and every
 * other 4xx is final; an item whose next attempt would fall past its
 * kind's horizon is parked, never dropped, bets included.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  decide,
  DISPATCH_HORIZON_MS,
  DISPATCH_SCHEDULE,
  ITEM_KINDS,
  RETRY_AFTER_MS_MAX,
  retryDelayMs,
  type SendAttempt,
} from '../../src/dispatch/retry-schedule.js';
import { retryAfterMs } from '../../src/clients/http-call.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const fresh = { kind: 'win' as const, attempts: 1, createdAt: NOW };

describe('the back-off', () => {
  test('retry n waits a uniform share of min(60 s, 0.5 s × 2^(n-1))', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempts, r) => {
        const ceiling = Math.min(60_000, 500 * 2 ** Math.min(attempts - 1, 30));
        const delay = retryDelayMs(DISPATCH_SCHEDULE, attempts, undefined, () => r);
        assert.ok(delay >= 0 && delay <= ceiling, `attempt ${attempts}: ${delay} within [0, ${ceiling}]`);
        assert.equal(delay, Math.floor(r * ceiling));
      }),
    );
  });

  test('the cap: a late retry never waits 60 s or more, and the top of the jitter reaches close to it', () => {
    const top = () => 0.999_999;
    assert.equal(retryDelayMs(DISPATCH_SCHEDULE, 1, undefined, top), 499);
    assert.equal(retryDelayMs(DISPATCH_SCHEDULE, 8, undefined, top), 59_999);
    assert.equal(retryDelayMs(DISPATCH_SCHEDULE, 5_000, undefined, top), 59_999);
    assert.equal(
      retryDelayMs(DISPATCH_SCHEDULE, 5_000, undefined, () => 0),
      0,
    );
  });

  test('the back-off is the client policy, not a second definition', async () => {
    const { PROTOCOL_RETRY } = await import('../../src/clients/http-call.js');
    assert.equal(DISPATCH_SCHEDULE.retry, PROTOCOL_RETRY);
  });
});

describe('Retry-After', () => {
  test('seconds, an HTTP date, a date already past, and what is neither', () => {
    assert.equal(retryAfterMs('7', NOW), 7_000);
    assert.equal(retryAfterMs(' 0 ', NOW), 0);
    assert.equal(retryAfterMs(new Date(NOW + 90_000).toUTCString(), NOW), 90_000);
    assert.equal(retryAfterMs('Thu, 01 Jan 2026 00:00:30 GMT', NOW), 30_000);
    assert.equal(retryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', NOW), 0);
    assert.equal(retryAfterMs(undefined, NOW), undefined);
    assert.equal(retryAfterMs('-5', NOW), undefined);
    assert.equal(retryAfterMs('1.5', NOW), undefined);
    assert.equal(retryAfterMs('soon', NOW), undefined);
  });

  test('is waited for at least, seconds or date, and never longer than the named maximum', () => {
    const least = () => 0;
    const asked = (retryAfter: string): SendAttempt => ({ kind: 'answered', status: 503, retryAfter });
    assert.deepEqual(decide(DISPATCH_SCHEDULE, fresh, asked('30'), NOW, least), { kind: 'retry', at: NOW + 30_000, notBefore: NOW + 30_000 });
    assert.deepEqual(decide(DISPATCH_SCHEDULE, fresh, asked(new Date(NOW + 45_000).toUTCString()), NOW, least), {
      kind: 'retry',
      at: NOW + 45_000,
      notBefore: NOW + 45_000,
    });
    assert.deepEqual(decide(DISPATCH_SCHEDULE, fresh, { kind: 'answered', status: 429, retryAfterMs: 12_000 }, NOW, least), {
      kind: 'retry',
      at: NOW + 12_000,
      notBefore: NOW + 12_000,
    });
    // A year's wait asked for: the maximum instead.
    assert.deepEqual(decide(DISPATCH_SCHEDULE, fresh, asked(String(365 * 86_400)), NOW, least), {
      kind: 'retry',
      at: NOW + RETRY_AFTER_MS_MAX,
      notBefore: NOW + RETRY_AFTER_MS_MAX,
    });
    // A back-off longer than the wait asked for wins; what was asked stays the bound the operator's return cannot bring forward.
    assert.deepEqual(
      decide(DISPATCH_SCHEDULE, { ...fresh, attempts: 10 }, asked('1'), NOW, () => 0.5),
      {
        kind: 'retry',
        at: NOW + 30_000,
        notBefore: NOW + 1_000,
      },
    );
    // No Retry-After: no bound.
    assert.deepEqual(decide(DISPATCH_SCHEDULE, fresh, { kind: 'failed', detail: 'ECONNRESET' }, NOW, least), { kind: 'retry', at: NOW });
  });
});

describe('which answers are resent', () => {
  const halfway = () => 0.5;
  test('network errors, time-outs, invalid 200 answers, 408, 429, 500, 502, 503, 504 are resent', () => {
    const resent: SendAttempt[] = [
      { kind: 'failed', detail: 'ECONNRESET' },
      { kind: 'failed', detail: 'no answer within 5000 ms' },
      { kind: 'invalid-answer', status: 200, detail: 'not JSON' },
      ...[408, 429, 500, 502, 503, 504].map((status): SendAttempt => ({ kind: 'answered', status })),
    ];
    for (const attempt of resent)
      assert.deepEqual(decide(DISPATCH_SCHEDULE, fresh, attempt, NOW, halfway), { kind: 'retry', at: NOW + 250 }, JSON.stringify(attempt));
  });

  test('200 is sent; every other 4xx, and 5xx outside the rule, is a final refusal', () => {
    assert.deepEqual(decide(DISPATCH_SCHEDULE, fresh, { kind: 'answered', status: 200 }, NOW, halfway), { kind: 'sent' });
    for (const status of [400, 401, 402, 403, 404, 409, 413, 415, 422, 501, 505]) {
      assert.deepEqual(decide(DISPATCH_SCHEDULE, fresh, { kind: 'answered', status }, NOW, halfway), { kind: 'refused' }, `HTTP ${status}`);
    }
  });
});

describe('the horizon', () => {
  test('every kind, bets included, is parked once its next attempt would fall past the horizon, and retried until then', () => {
    for (const kind of ITEM_KINDS) {
      const item = { kind, attempts: 40, createdAt: NOW };
      const failed: SendAttempt = { kind: 'failed', detail: 'ECONNREFUSED' };
      const late = NOW + DISPATCH_HORIZON_MS - 30_000;
      assert.deepEqual(
        decide(DISPATCH_SCHEDULE, item, failed, late, () => 0.25),
        { kind: 'retry', at: late + 15_000 },
        kind,
      );
      assert.deepEqual(
        decide(DISPATCH_SCHEDULE, item, failed, late, () => 0.75),
        { kind: 'parked' },
        kind,
      );
      assert.deepEqual(
        decide(DISPATCH_SCHEDULE, item, { kind: 'answered', status: 503 }, NOW + DISPATCH_HORIZON_MS + 1, () => 0),
        { kind: 'parked' },
        kind,
      );
      // A final answer past the horizon is still final.
      assert.deepEqual(
        decide(DISPATCH_SCHEDULE, item, { kind: 'answered', status: 200 }, NOW + 2 * DISPATCH_HORIZON_MS, () => 0),
        { kind: 'sent' },
      );
    }
  });

  test('horizons are per kind and configurable', () => {
    const schedule = { ...DISPATCH_SCHEDULE, horizonMs: { ...DISPATCH_SCHEDULE.horizonMs, bet: 60_000 } };
    const failed: SendAttempt = { kind: 'failed', detail: 'timeout' };
    assert.deepEqual(
      decide(schedule, { kind: 'bet', attempts: 1, createdAt: NOW }, failed, NOW + 59_900, () => 0.5),
      { kind: 'parked' },
    );
    assert.deepEqual(
      decide(schedule, { kind: 'win', attempts: 1, createdAt: NOW }, failed, NOW + 59_900, () => 0.5),
      { kind: 'retry', at: NOW + 60_150 },
    );
  });
});
