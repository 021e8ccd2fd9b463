/**
 * Proves the kit's check before any case, on both sides, against an
 * endpoint that is no operator or provider (it answers 200
 * `{"balance":100}` to everything): its failure is a finding, said in
 * words (what /authenticate or /game-bets answered, or what the back
 * office did), with the request and the answer; no case runs and each is
 * reported skipped, saying why; the run fails (`runFailed`); the JSON
 * report keeps the schema and every other report shows the failure: JUnit
 * as a failing testcase, HTML as the verdict, the terminal as a line and
 * the summary, headed by the side it checks. An endpoint that does not
 * answer at all still stops the run before it starts (RunNotStarted, exit
 * 2). A check that passes is reported passed.
 */
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { runOperatorConformance } from '../../src/conformance/operator-runner.js';
import { runProviderConformance } from '../../src/conformance/provider-runner.js';
import { PREFLIGHT_FAILED_REASON, RunReport, runFailed } from '../../src/conformance/report.js';
import { renderReport } from '../../src/conformance/reporters/files.js';
import { terminalReporter } from '../../src/conformance/reporters/terminal.js';
import { RunNotStarted, type RunEvent } from '../../src/conformance/runner.js';
import { ADMIN_TOKEN } from '../helpers.js';
import { strangerEndpoint, type Listening } from './faulty-operators.js';
import { GAMES, listeningOperator, shown, targetOf, type ListeningOperator } from './kit-helpers.js';
import { providerTarget } from './provider-kit-helpers.js';

/** The fixtures file of the report that asked for this: one EUR player, with keys listed. */
const P1_FILE = { games: ['dice'], players: [{ playerId: 'p1', currency: 'EUR', launchKeys: { dice: ['k1', 'k2', 'k3'] } }] };

/** What the terminal shows of a run's events, without colours. */
function terminalText(events: readonly RunEvent[]): string {
  let text = '';
  const listen = terminalReporter({ write: (chunk) => (text += chunk), isTTY: false }, false);
  for (const event of events) listen(event);
  return text;
}

/** An address where nothing listens: a port taken and given back. */
async function deadOrigin(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** Every case skipped as not run, none judged, and the run failed by its check before any case. */
function assertNothingRan(report: RunReport): void {
  assert.equal(report.preflight.outcome, 'failed');
  assert.equal(runFailed(report), true);
  assert.ok(report.cases.length > 10, `${report.cases.length} cases`);
  assert.deepEqual(new Set(report.cases.map((each) => `${each.outcome}: ${each.reason}`)), new Set([`skipped: ${PREFLIGHT_FAILED_REASON}`]));
  assert.deepEqual(report.summary, { total: report.cases.length, passed: 0, failed: 0, skipped: report.cases.length });
  const check = TypeCompiler.Compile(RunReport);
  const parsed: unknown = JSON.parse(renderReport(report, 'json'));
  assert.ok(check.Check(parsed), JSON.stringify([...check.Errors(parsed)].slice(0, 3)));
}

// eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
describe('the check before any case, against an endpoint that answers 200 {"balance":100} to everything', () => {
  let stranger: Listening;

  before(async () => {
    stranger = await strangerEndpoint();
  });
  after(async () => {
    await stranger?.close();
  });

  test("operator, a fixtures file: /authenticate's answer is said in words, no case runs, and every report shows it", async () => {
    const events: RunEvent[] = [];
    const report = await runOperatorConformance({
      target: targetOf(stranger.origin),
      fixtures: { file: { content: P1_FILE, origin: 'fixtures.json' } },
      onEvent: (event) => events.push(event),
    });
    assertNothingRan(report);
    const failure = report.preflight.failure!;
    assert.equal(failure.step, 0);
    assert.equal(failure.say, 'open a session for each player of the fixtures, with a fresh launch key, in the currency the fixtures give it');
    assert.deepEqual(failure.problems, [
      'p1: /authenticate answered no sessionId (docs/protocol.md §5)',
      'p1: /authenticate answered no playerId; the key\'s player is "p1" (docs/protocol.md §5)',
      'p1: /authenticate answered no currency; the player holds EUR (docs/protocol.md §5)',
      'p1: /authenticate answered no country (docs/protocol.md §5)',
      'every case opens sessions as this one: check the endpoint, --secret, --token and the fixtures',
    ]);
    assert.equal(failure.requests[0]?.url, `${stranger.origin}/authenticate`);
    assert.equal(failure.requests[0]?.body, '{"key":"k1","game":"dice"}');
    assert.deepEqual(failure.answer, { status: 200, contentType: 'application/json', body: '{"balance":100}' });
    assert.match(failure.curl, /^curl .*\/authenticate/);

    const junit = renderReport(report, 'junit');
    assert.match(junit, /<testsuites [^>]*tests="\d+" failures="1"/);
    assert.match(
      junit,
      /<testcase classname="operator\.preflight" name="preflight: [^"]*"[^>]*>\n\s*<failure message="p1: \/authenticate answered no sessionId/,
    );
    const html = renderReport(report, 'html');
    assert.match(html, /Not conformant: the check before any case failed, so no case was run\./);
    assert.match(html, /Failed at the check before any case: open a session for each player/);
    assert.match(html, /p1: \/authenticate answered no currency; the player holds EUR/);

    const text = terminalText(events);
    assert.match(text, new RegExp(`^Conformance of the operator at ${stranger.origin}: \\d+ cases; fixtures from fixtures\\.json\\n`));
    assert.match(text, /^FAIL before any case: open a session for each player of the fixtures/m);
    assert.doesNotMatch(text, /^(PASS|SKIP) /m, 'no line per case: none ran');
    assert.match(
      text,
      /1\) preflight: before any case, the endpoint and the fixtures give what every case needs\n {3}docs\/protocol\.md §5\n {3}before any case: open a session/,
    );
    assert.match(text, /- p1: \/authenticate answered no sessionId \(docs\/protocol\.md §5\)/);
    assert.match(text, /answer: 200 application\/json \{"balance":100\}/);
    assert.match(text, /\nFAILED before any case: none of \d+ cases was run\n$/);
    assert.doesNotMatch(text, /Skipped, not judged/);
  });

  test('operator, the back office: its answer is said, and the run fails the same way', async () => {
    const report = await runOperatorConformance({
      target: targetOf(stranger.origin),
      fixtures: { adminToken: ADMIN_TOKEN, file: { content: { games: GAMES }, origin: 'the test' } },
    });
    assertNothingRan(report);
    assert.deepEqual(report.preflight.failure!.problems, [
      'the fixtures give no player to start with: the back office did not make a EUR player: 200 {"balance":100}',
    ]);
    assert.deepEqual(report.preflight.failure!.requests, []);
  });

  test("provider: /game-bets's answer is said in words, no case runs, and the terminal names the provider", async () => {
    const events: RunEvent[] = [];
    const report = await runProviderConformance({
      target: providerTarget(stranger.origin, { currencies: ['EUR', 'JPY'] }),
      onEvent: (event) => events.push(event),
    });
    assertNothingRan(report);
    const failure = report.preflight.failure!;
    assert.equal(failure.say, 'ask /game-bets for the ladders of dice in EUR, JPY');
    assert.deepEqual(failure.problems, [
      '/game-bets answered no ladder of dice in EUR (docs/protocol.md §8.2)',
      '/game-bets answered no ladder of dice in JPY (docs/protocol.md §8.2)',
      'every case needs the game in these currencies: check the endpoint, --secret, --operator-id, --wallet-id, --game and --currency',
    ]);
    assert.equal(failure.requests[0]?.url, `${stranger.origin}/game-bets`);
    const text = terminalText(events);
    assert.match(text, new RegExp(`^Conformance of the provider at ${stranger.origin}: \\d+ cases; as operator `));
    assert.match(text, /docs\/protocol\.md §8\.2\n {3}before any case: ask \/game-bets for the ladders of dice in EUR, JPY/);
  });

  test('an endpoint that does not answer at all: the run does not start, on either side', async () => {
    const dead = await deadOrigin();
    await assert.rejects(
      runOperatorConformance({ target: targetOf(dead), fixtures: { file: { content: P1_FILE, origin: 'fixtures.json' } } }),
      (error: Error) => {
        assert.ok(error instanceof RunNotStarted);
        assert.equal(error.message, `could not reach ${dead} (connection refused): check the endpoint`);
        return true;
      },
    );
    await assert.rejects(
      runOperatorConformance({ target: targetOf(dead), fixtures: { adminToken: ADMIN_TOKEN, file: { content: { games: GAMES }, origin: 'the test' } } }),
      (error: Error) => {
        assert.ok(error instanceof RunNotStarted);
        assert.match(error.message, /^the fixtures give no player to start with: the back office did not make a EUR player: no answer .*: check the endpoint$/);
        return true;
      },
    );
    await assert.rejects(runProviderConformance({ target: providerTarget(dead) }), RunNotStarted);
  });
});

describe('the check before any case, against our operator', () => {
  let server: ListeningOperator;

  before(async () => {
    server = await listeningOperator('sqlite');
  });
  after(async () => {
    await server?.close();
  });

  test('passes, and the report says so', async () => {
    const report = await runOperatorConformance({
      target: targetOf(server.origin),
      fixtures: { adminToken: ADMIN_TOKEN, file: { content: { games: GAMES }, origin: 'the test' } },
      only: ['replay'],
      world: server.world,
    });
    assert.deepEqual(report.preflight, { outcome: 'passed' });
    assert.equal(runFailed(report), false, shown(report));
    assert.ok(report.summary.passed > 0);
  });
});
