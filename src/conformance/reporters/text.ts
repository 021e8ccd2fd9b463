/** A failure as plain text, the same in every report that shows one whole. */
import { ACCESS_TOKEN_VARIABLE } from '../curl.js';
import type { CaseResult } from '../report.js';

export function failureText(result: CaseResult): string {
  const failure = result.failure;
  if (failure === undefined) return '';
  const lines = [`${result.id}: ${result.title} (${result.clause})`, `${failure.step === 0 ? 'set-up' : `step ${failure.step}`}: ${failure.say}`];
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
  if (failure.curl !== '') lines.push(result.side === 'operator' ? `reproduce ($${ACCESS_TOKEN_VARIABLE} holds the access token):` : 'reproduce:', failure.curl);
  return lines.join('\n');
}
