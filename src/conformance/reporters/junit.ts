/**
 * JUnit XML, the report CI servers read: a testsuite per area, a testcase
 * per case, a <failure> with the problems and the curl command, a
 * <skipped> with its reason; a check before any case that failed is a
 * failing testcase of its own.
 */
import { preflightCase, type CaseResult, type RunReport } from '../report.js';
import { failureText } from './text.js';

/** Text as XML 1.0 character data: escaped, and characters XML cannot hold shown as \uXXXX. */
function xmlText(text: string): string {
  return text
    .replace(
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    )
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function testcase(result: CaseResult): string {
  const open = `    <testcase classname="${xmlText(`${result.side}.${result.area}`)}" name="${xmlText(`${result.id}: ${result.title}`)}" time="${seconds(result.durationMs)}"`;
  if (result.outcome === 'passed') return `${open}/>`;
  if (result.outcome === 'skipped') return `${open}>\n      <skipped message="${xmlText(result.reason ?? '')}"/>\n    </testcase>`;
  const failure = result.failure!;
  return `${open}>\n      <failure message="${xmlText(failure.problems[0] ?? '')}" type="${xmlText(result.clause)}">${xmlText(failureText(result))}</failure>\n    </testcase>`;
}

export function junitReport(report: RunReport): string {
  // A failed check before any case is a failing testcase of its own, first: a CI server shows the run red.
  const preflight = preflightCase(report);
  const all = preflight === undefined ? report.cases : [preflight, ...report.cases];
  const areas = [...new Set(all.map((result) => result.area))];
  const suites = areas.map((area) => {
    const results = all.filter((result) => result.area === area);
    const count = (outcome: CaseResult['outcome']) => results.filter((result) => result.outcome === outcome).length;
    const time = results.reduce((sum, result) => sum + result.durationMs, 0);
    return (
      `  <testsuite name="${xmlText(`${report.side}.${area}`)}" tests="${results.length}" failures="${count('failed')}" errors="0" skipped="${count('skipped')}" time="${seconds(time)}" timestamp="${xmlText(report.startedAt)}">\n` +
      `${results.map(testcase).join('\n')}\n` +
      '  </testsuite>'
    );
  });
  const extra = preflight === undefined ? 0 : 1;
  const { total, failed, skipped } = report.summary;
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="${xmlText(`wagerlink conformance: ${report.side} at ${report.endpoint}`)}" tests="${total + extra}" failures="${failed + extra}" errors="0" skipped="${skipped}" time="${seconds(report.durationMs)}">\n` +
    `${suites.join('\n')}\n` +
    '</testsuites>\n'
  );
}
