/**
 * Proves that the operator's cases are well made as data: at least 80 of
 * them, unique ids under their area, every area covered, a clause of
 * docs/protocol.md that exists for each, a check in every case, a balance
 * stated for every booking answered 200, a code for every refusal, and
 * needs that match the steps (a case that waits needs a clock, one that
 * blocks needs a block, one on the second game needs it). And that --only
 * selects by area and by id, and refuses what names nothing.
 */
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OPERATOR_AREAS, type CallStep, type Step } from '../../src/conformance/case-model.js';
import { OPERATOR_CASES } from '../../src/conformance/operator/index.js';
import { RunNotStarted, selectCases } from '../../src/conformance/runner.js';

const DOC = readFileSync(new URL('../../../docs/protocol.md', import.meta.url), 'utf8');
const SECTIONS = new Set([...DOC.matchAll(/^#{2,4} (\d+(?:\.\d+)*)\.? /gm)].map((match) => match[1]!));

const calls = (steps: readonly Step[]): CallStep[] => steps.filter((step): step is CallStep => step.kind === 'call');

test('at least 80 operator cases, each id unique and under its area', () => {
  assert.ok(OPERATOR_CASES.length >= 80, `${OPERATOR_CASES.length} cases`);
  const ids = OPERATOR_CASES.map((each) => each.id);
  assert.equal(new Set(ids).size, ids.length, 'ids are unique');
  for (const each of OPERATOR_CASES) {
    assert.ok((OPERATOR_AREAS as readonly string[]).includes(each.area), `${each.id}: area ${each.area}`);
    assert.match(each.id, new RegExp(`^${each.area}\\.[a-z0-9-]+$`));
    assert.equal(each.side, 'operator');
  }
  for (const area of OPERATOR_AREAS)
    assert.ok(
      OPERATOR_CASES.some((each) => each.area === area),
      `${area} has cases`,
    );
});

test('every case cites a section of docs/protocol.md that exists', () => {
  for (const each of OPERATOR_CASES) {
    const match = /^docs\/protocol\.md §(\d+(?:\.\d+)*)$/.exec(each.clause);
    assert.ok(match, `${each.id}: clause "${each.clause}"`);
    assert.ok(SECTIONS.has(match[1]!), `${each.id}: §${match[1]} is not a section`);
  }
});

test('every case checks something, states the balance of every booking and the code of every refusal', () => {
  for (const each of OPERATOR_CASES) {
    assert.ok(
      each.steps.some((step) => step.kind === 'call' || step.kind === 'parallel' || step.kind === 'probe'),
      `${each.id} has a step that judges an answer`,
    );
    for (const step of calls(each.steps)) {
      const { status, code, balance } = step.expect;
      if (status === 200 && step.endpoint !== '/authenticate') assert.ok(balance !== undefined, `${each.id}: "${step.say}" states the balance of its 200`);
      if (status !== 200) assert.ok(code !== undefined, `${each.id}: "${step.say}" states the code of its ${status}`);
      assert.ok((step.body === undefined) !== (step.resend === undefined), `${each.id}: "${step.say}" has a body or resends, not both`);
      if (step.tamper !== undefined) assert.ok(step.resend !== undefined, `${each.id}: "${step.say}" tampers with a kept request`);
    }
  }
});

test('a request is resent only after a step kept it', () => {
  for (const each of OPERATOR_CASES) {
    const kept = new Set<string>();
    for (const step of calls(each.steps)) {
      if (step.resend !== undefined) assert.ok(kept.has(step.resend), `${each.id} resends ${step.resend} before keeping it`);
      if (step.keep !== undefined) kept.add(step.keep);
    }
  }
});

test('needs match the steps', () => {
  for (const each of OPERATOR_CASES) {
    const waits = each.steps.some((step) => step.kind === 'wait');
    const blocks = each.steps.some((step) => step.kind === 'block');
    const otherGame = each.steps.some((step) => step.kind === 'session' && step.game === 'other');
    assert.equal(each.needs.includes('clock'), waits, `${each.id}: needs a clock exactly when it waits`);
    assert.equal(each.needs.includes('block'), blocks, `${each.id}: needs block exactly when it blocks`);
    assert.equal(each.needs.includes('second-game'), otherGame, `${each.id}: needs a second game exactly when it uses one`);
    for (const [i, step] of each.steps.entries()) {
      if (step.kind !== 'block') continue;
      assert.ok(
        each.steps.slice(i + 1).some((later) => later.kind === 'unblock'),
        `${each.id} unblocks the player it blocks`,
      );
    }
  }
});

test("--only selects by area and by case id, in the cases' order, and refuses a name of nothing", () => {
  const auth = selectCases(OPERATOR_CASES, ['auth']);
  assert.ok(auth.length > 0 && auth.every((each) => each.area === 'auth'));
  const one = OPERATOR_CASES[OPERATOR_CASES.length - 1]!;
  const mixed = selectCases(OPERATOR_CASES, [one.id, 'auth']);
  assert.deepEqual(
    mixed.map((each) => each.id),
    [...auth.map((each) => each.id), one.id],
  );
  assert.equal(selectCases(OPERATOR_CASES, []).length, OPERATOR_CASES.length);
  assert.throws(
    () => selectCases(OPERATOR_CASES, ['auth', 'no-such-area']),
    (error: Error) => error instanceof RunNotStarted && /no-such-area/.test(error.message),
  );
});
