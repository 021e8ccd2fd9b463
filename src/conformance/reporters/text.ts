/** A failure as plain text, the same in every report that shows one whole. */
import { ACCESS_TOKEN_VARIABLE } from '../curl.js';
import type { CaseResult } from '../report.js';

/** Where a case failed, in words: the check before any case, a case's set-up (step 0), or a step. */
export function failedAt(result: CaseResult): string {
  const step = result.failure?.step ?? 0;
  if (result.id === 'preflight') return 'before any case';
  return step === 0 ? 'set-up' : `step ${step}`;
}

export function failureText(result: CaseResult): string {
  const failure = result.failure;
  if (failure === undefined) return '';
  const lines = [`${result.id}: ${result.title} (${result.clause})`, `${failedAt(result)}: ${failure.say}`];
  for (const problem of failure.problems) lines.push(`- ${problem}`);
  failure.requests.forEach((request, i) => {
    lines.push(`request${failure.requests.length > 1 ? ` ${i + 1}` : ''}: ${request.method} ${request.url}`);
    for (const [name, value] of Object.entries(request.headers)) lines.push(`  ${name}: ${value}`);
    lines.push(`  body (${request.bodyBytes} bytes): ${request.body}`);
  });
  if (failure.answer !== undefined) {
    const answer = failure.answer;
    lines.push(answer.error !== undefined ? `answer: none (${answer.error})` : `answer: ${answer.status} ${answer.contentType ?? ''}\n  ${answer.body ?? ''}`);
  }
  if (failure.curl !== '')
    lines.push(result.side === 'operator' ? `reproduce ($${ACCESS_TOKEN_VARIABLE} holds the access token):` : 'reproduce:', failure.curl);
  return lines.join('\n');
}
