/**
 * The report for a person at a terminal: a line per case as it ends (on a
 * terminal, the case running shows on the line below until then), and a
 * summary with every skip's reason and every failure's problems, request,
 * answer and curl command. Colours only on a terminal, and never with
 * NO_COLOR set.
 */
import type { RunEvent } from '../runner.js';
import { PREFLIGHT_FAILED_REASON, preflightCase, type CaseResult, type RunReport } from '../report.js';
import { failedAt } from './text.js';
import { ACCESS_TOKEN_VARIABLE } from '../curl.js';

export interface TerminalOutput {
  write(text: string): void;
  isTTY?: boolean;
}

type Paint = (text: string) => string;

interface Palette {
  pass: Paint;
  fail: Paint;
  skip: Paint;
  bold: Paint;
  dim: Paint;
}

const ansi =
  (code: string): Paint =>
  (text) =>
    `\u001b[${code}m${text}\u001b[0m`;
const COLOURS: Palette = { pass: ansi('32'), fail: ansi('31'), skip: ansi('33'), bold: ansi('1'), dim: ansi('2') };
const PLAIN: Palette = { pass: (t) => t, fail: (t) => t, skip: (t) => t, bold: (t) => t, dim: (t) => t };

/** Colours when the output is a terminal and NO_COLOR (https://no-color.org) is unset. */
export function wantsColour(output: TerminalOutput, env: NodeJS.ProcessEnv = process.env): boolean {
  return output.isTTY === true && (env.NO_COLOR ?? '') === '';
}

function mark(result: Pick<CaseResult, 'outcome'>, paint: Palette): string {
  if (result.outcome === 'passed') return paint.pass('PASS');
  if (result.outcome === 'failed') return paint.fail('FAIL');
  return paint.skip('SKIP');
}

function counter(index: number, total: number): string {
  return `[${String(index + 1).padStart(String(total).length)}/${total}]`;
}

/** A listener for the runner's events that writes the live report. */
export function terminalReporter(output: TerminalOutput, colour: boolean): (event: RunEvent) => void {
  const paint = colour ? COLOURS : PLAIN;
  const live = output.isTTY === true;
  return (event) => {
    switch (event.type) {
      case 'start':
        output.write(
          `${paint.bold(`Conformance of the ${event.side} at ${event.endpoint}`)}: ${event.total} cases; ${event.side === 'operator' ? 'fixtures from' : 'as'} ${event.fixtures}\n\n`,
        );
        return;
      case 'preflight-failed':
        output.write(`${mark({ outcome: 'failed' }, paint)} before any case: ${event.failure.say}\n`);
        return;
      case 'case-start':
        if (live) output.write(paint.dim(`     ${counter(event.index, event.total)} ${event.id} …`));
        return;
      case 'case-end': {
        const { result } = event;
        const clear = live ? '\r\u001b[K' : '';
        const reason = result.outcome === 'skipped' ? paint.dim(` (${result.reason})`) : '';
        output.write(`${clear}${mark(result, paint)} ${counter(event.index, event.total)} ${result.id}  ${paint.dim(result.title)}${reason}\n`);
        return;
      }
      case 'end':
        output.write(`\n${summaryText(event.report, colour)}`);
        return;
    }
  };
}

function indent(text: string, by: string): string {
  return text
    .split('\n')
    .map((line) => `${by}${line}`)
    .join('\n');
}

/** The summary: counts, skips grouped by reason, and each failure in full. */
export function summaryText(report: RunReport, colour: boolean): string {
  const paint = colour ? COLOURS : PLAIN;
  const { total, passed, failed, skipped } = report.summary;
  const lines: string[] = [];
  const counts = [
    paint.pass(`${passed} passed`),
    failed > 0 ? paint.fail(`${failed} failed`) : `${failed} failed`,
    skipped > 0 ? paint.skip(`${skipped} skipped`) : `${skipped} skipped`,
  ];
  lines.push(`${paint.bold('Summary')}: ${total} cases: ${counts.join(', ')} (${(report.durationMs / 1000).toFixed(1)} s)`);

  const skips = new Map<string, string[]>();
  // Every case is skipped when the check before any case failed; the failure below says so once.
  const listed = report.cases.filter((result) => result.outcome === 'skipped' && result.reason !== PREFLIGHT_FAILED_REASON);
  for (const result of listed) skips.set(result.reason ?? '', [...(skips.get(result.reason ?? '') ?? []), result.id]);
  if (skips.size > 0) {
    lines.push('', paint.skip(paint.bold('Skipped, not judged:')));
    for (const [reason, ids] of skips) lines.push(`  ${reason}`, paint.dim(`    ${ids.length} case${ids.length === 1 ? '' : 's'}: ${ids.join(', ')}`));
  }

  const preflight = preflightCase(report);
  const failures = [...(preflight === undefined ? [] : [preflight]), ...report.cases.filter((result) => result.outcome === 'failed')];
  if (failures.length > 0) {
    lines.push('', paint.fail(paint.bold('Failures:')));
    // Only calls to an operator carry an access token; the provider's endpoints take none (docs/protocol.md §8).
    if (report.side === 'operator') lines.push(paint.dim(`  (the curl commands read the access token from $${ACCESS_TOKEN_VARIABLE})`));
    failures.forEach((result, i) => {
      const failure = result.failure!;
      lines.push('', `${i + 1}) ${paint.bold(result.id)}: ${result.title}`, `   ${result.clause}`);
      lines.push(`   ${failedAt(result)}: ${failure.say}`);
      for (const problem of failure.problems) lines.push(paint.fail(indent(`- ${problem}`, '   ')));
      const request = failure.requests[failure.requests.length - 1];
      if (request !== undefined)
        lines.push(
          `   request: ${request.method} ${request.url} (${request.bodyBytes} bytes${failure.requests.length > 1 ? `, one of ${failure.requests.length} sent at once` : ''})`,
        );
      if (failure.answer !== undefined) {
        const answer = failure.answer;
        lines.push(
          `   answer: ${answer.error !== undefined ? `none (${answer.error})` : `${answer.status} ${answer.contentType ?? ''} ${answer.body ?? ''}`.trim()}`,
        );
      }
      if (failure.curl !== '') lines.push('   reproduce:', indent(failure.curl, '     '));
    });
  }
  let verdict: string;
  if (preflight !== undefined) verdict = paint.fail(`FAILED before any case: none of ${total} cases was run`);
  else if (failed > 0) verdict = paint.fail(`FAILED: ${failed} of ${total} cases`);
  else verdict = paint.pass(`PASSED: ${passed} of ${total} cases${skipped > 0 ? ` (${skipped} skipped, not judged)` : ''}`);
  lines.push('', verdict, '');
  return lines.join('\n');
}
