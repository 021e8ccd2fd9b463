/**
 * Proves that the provider's cases are well made as data: at least 30 of
 * them, unique ids under their area, every area covered, a clause of
 * docs/protocol.md that exists for each, a code for every refusal, a check
 * on every 200 of /generate-launch-url, and needs that match what the steps
 * use; that docs/conformance.md gives each area's count and the total as
 * they are; and that --only selects provider cases by area and by id.
 */
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROVIDER_CASES } from '../../src/conformance/provider/index.js';
import { PROVIDER_AREAS, type ProviderCallStep } from '../../src/conformance/provider/model.js';
import { RunNotStarted, selectCases } from '../../src/conformance/runner.js';

const PROTOCOL = readFileSync(new URL('../../../docs/protocol.md', import.meta.url), 'utf8');
const SECTIONS = new Set([...PROTOCOL.matchAll(/^#{2,4} (\d+(?:\.\d+)*)\.? /gm)].map((match) => match[1]!));
const CONFORMANCE = readFileSync(new URL('../../../docs/conformance.md', import.meta.url), 'utf8');

const calls = (steps: (typeof PROVIDER_CASES)[number]['steps']): ProviderCallStep[] => steps.filter((step): step is ProviderCallStep => step.kind === 'call');

test('at least 30 provider cases, each id unique and under its area', () => {
  assert.ok(PROVIDER_CASES.length >= 30, `${PROVIDER_CASES.length} cases`);
  const ids = PROVIDER_CASES.map((each) => each.id);
  assert.equal(new Set(ids).size, ids.length, 'ids are unique');
  for (const each of PROVIDER_CASES) {
    assert.match(each.id, new RegExp(`^${each.area}\\.[a-z0-9-]+$`));
    assert.equal(each.side, 'provider');
  }
  for (const area of PROVIDER_AREAS)
    assert.ok(
      PROVIDER_CASES.some((each) => each.area === area),
      `${area} has cases`,
    );
});

test('every case cites a section of docs/protocol.md that exists', () => {
  for (const each of PROVIDER_CASES) {
    const match = /^docs\/protocol\.md §(\d+(?:\.\d+)*)$/.exec(each.clause);
    assert.ok(match, `${each.id}: clause "${each.clause}"`);
    assert.ok(SECTIONS.has(match[1]!), `${each.id}: §${match[1]} is not a section`);
  }
});

test('every refusal names its code; every launch answered 200 is judged beyond its status', () => {
  for (const each of PROVIDER_CASES) {
    for (const step of calls(each.steps)) {
      if (step.expect.status !== 200) assert.ok(step.expect.code !== undefined, `${each.id}: ${step.say}`);
      if (step.expect.status === 200 && step.endpoint === '/generate-launch-url') assert.ok(step.expect.check !== undefined, `${each.id}: ${step.say}`);
    }
    for (const step of each.steps) {
      if (step.kind === 'open')
        assert.ok(
          calls(each.steps).some((call) => call.keep === step.answer),
          `${each.id}: opens an answer it kept`,
        );
    }
  }
});

test('a case that signs with the next secret needs it', () => {
  for (const each of PROVIDER_CASES) {
    const usesNext = each.id.startsWith('auth.next-secret-');
    assert.equal(each.needs.includes('next-secret'), usesNext, each.id);
  }
});

test("docs/conformance.md gives each provider area's count and the total as they are", () => {
  const section = CONFORMANCE.slice(CONFORMANCE.indexOf('\n## The provider side'), CONFORMANCE.indexOf('\n## How the kit is built'));
  assert.ok(section.length > 0, 'docs/conformance.md has The provider side');
  const rows = new Map([...section.matchAll(/^\| `([a-z-]+)` \| (\d+) \|/gm)].map((match) => [match[1]!, Number(match[2])]));
  assert.deepEqual([...rows.keys()], [...PROVIDER_AREAS], 'one row per area, in the order a run takes them');
  for (const area of PROVIDER_AREAS) assert.equal(rows.get(area), PROVIDER_CASES.filter((each) => each.area === area).length, area);
  const total = /(\d+) cases in (\d+) areas\s+\(\[The provider side\]/.exec(CONFORMANCE);
  assert.ok(total, 'docs/conformance.md states the provider total');
  assert.equal(Number(total[1]), PROVIDER_CASES.length);
  assert.equal(Number(total[2]), PROVIDER_AREAS.length);
});

test('--only selects provider cases by area and by id, and refuses what names nothing', () => {
  assert.deepEqual(
    selectCases(PROVIDER_CASES, ['errors']).map((each) => each.id),
    ['errors.unknown-path', 'errors.get-game-bets'],
  );
  assert.deepEqual(
    selectCases(PROVIDER_CASES, ['launch-url.real']).map((each) => each.id),
    ['launch-url.real'],
  );
  assert.throws(() => selectCases(PROVIDER_CASES, ['bets-wins']), RunNotStarted);
});
