/**
 * What the conformance tests share: our operator listening on a real socket
 * with the kit's clock wired to it, the settings of a run against it, and
 * a report's summary for an assertion's message.
 */
import { randomUUID } from 'node:crypto';
import type { FixturesFile } from '../../src/conformance/fixtures.js';
import type { RunReport } from '../../src/conformance/report.js';
import { summaryText } from '../../src/conformance/reporters/terminal.js';
import type { KitWorld, OperatorTarget, RunOptions } from '../../src/conformance/operator-runner.js';
import type { RulesConfig } from '../../src/ledger/rules.js';
import type { World } from '../../src/operator/operator-service.js';
import { ACCESS_TOKEN, ADMIN_TOKEN, makeOperator, SECRET, type Operator, type OperatorBackendName } from '../helpers.js';

/** The lives of the operator's defaults (docs/protocol.md §9): on the operator's test clock the kit waits for them at no cost. */
const DEFAULT_EXPIRY: NonNullable<FixturesFile['expiry']> = { launchKeySeconds: 600, sessionIdleSeconds: 1800 };

/**
 * Cases our operator fails today: a bug the kit found, reported and not yet
 * fixed. The tests expect exactly these failures, so that a new one fails
 * them and so does the fix of one of these (which then leaves this list).
 * - validation.empty-body: a signed request with `Content-Type:
 *   application/json` and an empty body is answered 400 INVALID_REQUEST
 *   (401 INVALID_SIGNATURE when unsigned), where docs/protocol.md §1.1 and
 *   §3.2 answer a request with no body 415 UNSUPPORTED_MEDIA_TYPE, before
 *   the signature is checked (§5.3, §6.9).
 */
export const KNOWN_OPERATOR_FAILURES: readonly string[] = [];

/** The games of a run against our operator, which issues keys for any game. */
export const GAMES = ['dice', 'slots'];

export interface ListeningOperator {
  op: Operator;
  origin: string;
  /** The kit's waits move the operator's clock: expiry cases run at once, and run true. */
  world: KitWorld;
  close: () => Promise<void>;
}

export async function listeningOperator(
  backend: OperatorBackendName = 'sqlite',
  options: { realClock?: World['clock']; rules?: RulesConfig } = {},
): Promise<ListeningOperator> {
  let keys = 0;
  const app =
    options.realClock === undefined
      ? {}
      : { world: { clock: options.realClock, newId: () => randomUUID(), newLaunchKey: () => `key-${++keys}-${randomUUID()}` } };
  const op = await makeOperator({ backend, app, ...(options.rules === undefined ? {} : { rules: options.rules }) });
  const origin = await op.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    op,
    origin,
    world: {
      sleep: async (ms) => {
        op.clock.advance(ms);
      },
    },
    close: () => op.close(),
  };
}

export function targetOf(origin: string): OperatorTarget {
  return { endpoint: origin, secret: SECRET, accessToken: ACCESS_TOKEN };
}

/** A run through the back office, with games and expiry from a fixtures file of the test's own. */
export function backOfficeRun(origin: string, world: KitWorld, file: FixturesFile = { games: GAMES, expiry: DEFAULT_EXPIRY }): RunOptions {
  return { target: targetOf(origin), fixtures: { adminToken: ADMIN_TOKEN, file: { content: file, origin: 'the test' } }, world };
}

export function failedIds(report: RunReport): string[] {
  return report.cases.filter((result) => result.outcome === 'failed').map((result) => result.id);
}

/** The report as a person reads it: the message of an assertion about it. */
export function shown(report: RunReport): string {
  return summaryText(report, false);
}
