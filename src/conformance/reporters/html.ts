/**
 * The report as one HTML page that an integrator can send to the other
 * side: its style inline, no script, no image, no link or font from
 * anywhere else, so that it reads the same offline and in a mail client
 * that blocks remote content. Failures open with their problems, request,
 * answer and curl command (a failed check before any case first); passed
 * and skipped cases are listed by area.
 */
import { ACCESS_TOKEN_VARIABLE } from '../curl.js';
import { preflightCase, type CaseResult, type RunReport } from '../report.js';
import { failedAt } from './text.js';

function htmlText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

const STYLE = `
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 72em; padding: 0 1em; color: #1b1b1b; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; width: 100%; }
td, th { text-align: left; vertical-align: top; padding: 0.25em 0.5em; border-bottom: 1px solid #eee; }
.meta td:first-child { color: #555; width: 9em; }
.passed { color: #176b2c; } .failed { color: #b3261e; } .skipped { color: #8a5a00; }
.badge { font-weight: 600; font-size: 0.85em; }
.totals span { margin-right: 1.5em; font-weight: 600; }
details { border: 1px solid #e5c7c4; border-radius: 4px; padding: 0.5em 0.8em; margin: 0.8em 0; background: #fffafa; }
summary { cursor: pointer; font-weight: 600; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; white-space: pre-wrap; word-break: break-all; font-size: 0.85em; }
code { font-size: 0.9em; }
.dim { color: #666; }
`;

const LABEL: Readonly<Record<CaseResult['outcome'], string>> = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' };
/** failedAt's words where a sentence needs others. */
const AT_WORDS: Readonly<Record<string, string>> = { 'before any case': 'at the check before any case', 'set-up': 'at the set-up' };

function failureBlock(result: CaseResult): string {
  const failure = result.failure!;
  const requests = failure.requests
    .map((request) => {
      const headers = Object.entries(request.headers)
        .map(([name, value]) => `${name}: ${value}`)
        .join('\n');
      return `<pre>${request.method} ${htmlText(request.url)}\n${htmlText(headers)}\n\n${htmlText(request.body)}</pre>${request.bodyCut === true ? `<p class="dim">The body is cut here; it has ${request.bodyBytes} bytes, all of them in the curl command.</p>` : ''}`;
    })
    .join('');
  const answer = failure.answer;
  const answerText =
    answer === undefined
      ? ''
      : answer.error !== undefined
        ? `no answer: ${answer.error}`
        : `${answer.status} ${answer.contentType ?? ''}\n\n${answer.body ?? ''}`;
  return (
    `<details open id="${htmlText(result.id)}"><summary class="failed">${htmlText(result.id)}: ${htmlText(result.title)}</summary>` +
    `<p>Checks <code>${htmlText(result.clause)}</code>. Failed ${AT_WORDS[failedAt(result)] ?? `at ${failedAt(result)}`}: ${htmlText(failure.say)}.</p>` +
    `<ul>${failure.problems.map((problem) => `<li>${htmlText(problem)}</li>`).join('')}</ul>` +
    (requests === '' ? '' : `<p>Request${failure.requests.length > 1 ? `s, sent at once (${failure.requests.length})` : ''}:</p>${requests}`) +
    (answerText === '' ? '' : `<p>Answer:</p><pre>${htmlText(answerText)}</pre>`) +
    (failure.curl === ''
      ? ''
      : `<p>To send it again${result.side === 'operator' ? ` (with <code>${ACCESS_TOKEN_VARIABLE}</code> set to the access token)` : ''}:</p><pre>${htmlText(failure.curl)}</pre>`) +
    '</details>'
  );
}

function caseRow(result: CaseResult): string {
  const note =
    result.outcome === 'skipped'
      ? `<br><span class="dim">${htmlText(result.reason ?? '')}</span>`
      : result.outcome === 'failed'
        ? `<br><a href="#${htmlText(result.id)}">see the failure</a>`
        : '';
  return `<tr><td class="badge ${result.outcome}">${LABEL[result.outcome]}</td><td><code>${htmlText(result.id)}</code></td><td>${htmlText(result.title)}${note}</td><td class="dim">${htmlText(result.clause.replace('docs/protocol.md ', ''))}</td></tr>`;
}

export function htmlReport(report: RunReport): string {
  const { total, passed, failed, skipped } = report.summary;
  const preflight = preflightCase(report);
  const failures = [...(preflight === undefined ? [] : [preflight]), ...report.cases.filter((result) => result.outcome === 'failed')];
  const areas = [...new Set(report.cases.map((result) => result.area))];
  const verdict =
    preflight !== undefined
      ? `<p class="failed"><strong>Not conformant: the check before any case failed, so no case was run.</strong></p>`
      : failed > 0
        ? `<p class="failed"><strong>Not conformant: ${failed} of ${total} cases failed.</strong></p>`
        : `<p class="passed"><strong>Conformant: every case judged passed${skipped > 0 ? ` (${skipped} skipped, not judged)` : ''}.</strong></p>`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Wagerlink conformance: ${htmlText(report.side)} at ${htmlText(report.endpoint)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Wagerlink conformance report: ${htmlText(report.side)}</h1>
<table class="meta">
<tr><td>endpoint</td><td><code>${htmlText(report.endpoint)}</code></td></tr>
<tr><td>fixtures</td><td>${htmlText(report.fixtures)}</td></tr>
<tr><td>started</td><td>${htmlText(report.startedAt)}, ${(report.durationMs / 1000).toFixed(1)} s</td></tr>
<tr><td>cases</td><td>${report.only.length > 0 ? `only ${htmlText(report.only.join(', '))}` : 'all'}</td></tr>
<tr><td>interface</td><td>docs/protocol.md of Wagerlink, version 1; each case names the clause it checks</td></tr>
</table>
<p class="totals"><span>${total} cases</span><span class="passed">${passed} passed</span><span class="failed">${failed} failed</span><span class="skipped">${skipped} skipped</span></p>
${verdict}
${failures.length === 0 ? '' : `<h2>Failures</h2>\n${failures.map(failureBlock).join('\n')}`}
${areas
  .map((area) => {
    const rows = report.cases.filter((result) => result.area === area);
    return `<h2>${htmlText(area)}</h2>\n<table>\n${rows.map(caseRow).join('\n')}\n</table>`;
  })
  .join('\n')}
</body>
</html>
`;
}
