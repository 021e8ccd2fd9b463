/**
 * Proves the reports of a run that has failures, passes and skips: the
 * JSON report has the schema of report.ts and holds the run as returned;
 * the JUnit report is well-formed XML with a testcase per case; the HTML
 * report is one page with no external reference; the terminal report has
 * colours on a terminal only, and never with NO_COLOR. And that each curl
 * command sends exactly the headers and body bytes the kit sent, the
 * signature among them, for bodies of every kind.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ACCESS_TOKEN_PLACEHOLDER, curlCommand, parallelCurl, type RecordedRequest } from '../../src/conformance/curl.js';
import { RunReport } from '../../src/conformance/report.js';
import { renderReport } from '../../src/conformance/reporters/files.js';
import { summaryText, terminalReporter, wantsColour } from '../../src/conformance/reporters/terminal.js';
import { runOperatorConformance } from '../../src/conformance/operator-runner.js';
import type { RunEvent } from '../../src/conformance/runner.js';
import { sign } from '../../src/protocol/signing.js';
import { ACCESS_TOKEN, ADMIN_TOKEN, SECRET, tempDir } from '../helpers.js';
import { trivialOperator, type Listening } from './faulty-operators.js';
import { GAMES, targetOf } from './kit-helpers.js';

/** A light XML 1.0 check: one root, tags nested and closed, attributes quoted, text and values escaped, no character XML forbids. */
function assertWellFormedXml(xml: string): void {
  assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n/);
  assert.doesNotMatch(xml, /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/, 'no control character');
  const badEntity = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;
  const token = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>|([^<]+)/y;
  const body = xml.replace(/^<\?xml[^>]*\?>/, '');
  const stack: string[] = [];
  let roots = 0;
  token.lastIndex = 0;
  while (token.lastIndex < body.length) {
    const at = token.lastIndex;
    const match = token.exec(body);
    assert.ok(match, `not XML at ${at}: ${body.slice(at, at + 80)}`);
    const [, closing, name, attributes, selfClosing, text] = match;
    if (text !== undefined) {
      assert.ok(stack.length > 0 || text.trim() === '', `text outside the root: ${text.slice(0, 40)}`);
      assert.doesNotMatch(text, badEntity, `a bare & in ${text.slice(0, 80)}`);
      continue;
    }
    assert.doesNotMatch(attributes ?? '', badEntity, `a bare & in <${name}${attributes}>`);
    if (closing === '/') assert.equal(stack.pop(), name, `</${name}> closes what it opened`);
    else {
      if (stack.length === 0) roots++;
      if (selfClosing !== '/') stack.push(name!);
    }
  }
  assert.deepEqual(stack, [], 'every tag is closed');
  assert.equal(roots, 1, 'one root');
}

/** What a curl command would send: runs it under sh with a `curl` function that records its arguments and its stdin. */
function underCurl(command: string): { url: string; headers: Record<string, string>; bytes: Buffer } {
  const { dir, cleanup } = tempDir('wagerlink-curl-');
  try {
    const script = `curl() { for a in "$@"; do printf '%s\\0' "$a"; done > '${dir}/args'; cat > '${dir}/stdin'; }\n${command}\n`;
    writeFileSync(join(dir, 'run.sh'), script);
    execFileSync('sh', [join(dir, 'run.sh')], { env: { ...process.env, ACCESS_TOKEN }, stdio: ['ignore', 'pipe', 'pipe'] });
    const args = readFileSync(join(dir, 'args'), 'utf8').split('\0').slice(0, -1);
    const headers: Record<string, string> = {};
    let url = '';
    let bytes = Buffer.alloc(0);
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      if (arg === '-H') {
        const header = args[++i]!;
        const colon = header.indexOf(':');
        const name = header.slice(0, colon).toLowerCase();
        const value = header.slice(colon + 1).trimStart();
        if (value !== '') headers[name] = value;
      } else if (arg === '--data-binary') {
        const data = args[++i]!;
        bytes = data === '@-' ? readFileSync(join(dir, 'stdin')) : Buffer.from(data, 'utf8');
      } else if (!arg.startsWith('-')) url = arg;
    }
    return { url, headers, bytes };
  } finally {
    cleanup();
  }
}

function recorded(body: string | Uint8Array, extra: Record<string, string> = {}, drop: string[] = []): RecordedRequest {
  const bytes = typeof body === 'string' ? new Uint8Array(Buffer.from(body, 'utf8')) : body;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    authorization: `Bearer ${ACCESS_TOKEN_PLACEHOLDER}`,
    'x-server-authorization': sign(SECRET, bytes),
    ...extra,
  };
  for (const name of drop) delete headers[name];
  return { url: 'http://127.0.0.1:8080/transaction', headers, bytes };
}

/** The headers as sent: the placeholder of the token replaced by the token, as the shell does. */
function expanded(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, value.replaceAll(ACCESS_TOKEN_PLACEHOLDER, ACCESS_TOKEN)]));
}

describe('curl reproductions', () => {
  const bodies: [string, RecordedRequest][] = [
    ['plain JSON', recorded('{"sessionId":"x","amount":1.5}')],
    ['quotes, %, backslashes and non-ASCII text', recorded(`{"regulatory":"it's 100% \\\\ \\"x\\" ✓ € 😀\\n","tab":"\t"}`)],
    ['bytes that are not UTF-8', recorded(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]))],
    ['control characters and NUL', recorded(new Uint8Array([0x7b, 0x00, 0x01, 0x0d, 0x1b, 0x7f, 0x27, 0x25, 0x5c, 0x7d]))],
    ['a long run of one byte', recorded(`{"x-padding":"${'x'.repeat(262_144)}","a":${'0'.repeat(70)}1}`)],
    ['a body that starts with @', recorded('@/etc/passwd')],
    ['an empty body', recorded('')],
    ['no content type, no token, a wrong signature', recorded('{"a":1}', { 'x-server-authorization': 'sha256=abc' }, ['content-type', 'authorization'])],
    ['a token under another scheme', recorded('{"a":1}', { authorization: `Basic ${ACCESS_TOKEN_PLACEHOLDER}` })],
  ];
  for (const [what, request] of bodies) {
    test(`sends exactly the headers and bytes recorded: ${what}`, () => {
      const command = curlCommand(request);
      assert.doesNotMatch(command, new RegExp(ACCESS_TOKEN), 'the token is not written out');
      const sent = underCurl(command);
      assert.equal(sent.url, request.url);
      assert.deepEqual(sent.headers, expanded(request.headers));
      assert.ok(Buffer.from(request.bytes).equals(sent.bytes), `${sent.bytes.length} bytes sent, ${request.bytes.length} recorded`);
    });
  }

  test('a parallel step is reproduced by the same commands sent at once', () => {
    const one = recorded('{"a":1}');
    assert.match(parallelCurl([one, one, one]), /^for i in \$\(seq 3\); do\n {2}curl [\s\S]* &\ndone; wait$/);
    const two = parallelCurl([one, recorded('{"a":2}')]);
    assert.equal(two.match(/ &$/gm)?.length, 2);
    assert.match(two, /\nwait$/);
  });
});

// eslint-disable-next-line max-lines-per-function -- a suite: it only groups tests that share one setup, each of them short
describe('report files and the terminal', () => {
  let yes: Listening;
  let report: RunReport;
  const events: RunEvent[] = [];

  before(async () => {
    // Against an operator that answers 200 to everything: failures of every kind, some passes, and (no expiry) skips.
    yes = await trivialOperator('yes');
    report = await runOperatorConformance({
      target: targetOf(yes.origin),
      fixtures: { adminToken: ADMIN_TOKEN, file: { content: { games: GAMES }, origin: 'the test' } },
      only: ['auth', 'validation', 'limits', 'sessions', 'concurrency'],
      onEvent: (event) => events.push(event),
    });
    assert.ok(report.summary.failed > 0 && report.summary.passed > 0 && report.summary.skipped > 0, summaryText(report, false));
  });
  after(async () => {
    await yes?.close();
  });

  test('the JSON report has the schema of report.ts and holds the run', () => {
    const parsed: unknown = JSON.parse(renderReport(report, 'json'));
    const check = TypeCompiler.Compile(RunReport);
    assert.ok(check.Check(parsed), JSON.stringify([...check.Errors(parsed)].slice(0, 3)));
    assert.deepEqual(parsed, report);
    assert.doesNotMatch(renderReport(report, 'json'), new RegExp(`${ACCESS_TOKEN}|${SECRET}`), 'no credential in the report');
  });

  test('each failure holds its problems, its request and the curl command that sends it exactly', () => {
    for (const result of report.cases.filter((each) => each.outcome === 'failed')) {
      const failure = result.failure!;
      assert.ok(failure.problems.length > 0, result.id);
      if (failure.requests.length !== 1) continue;
      const [request] = failure.requests;
      const sent = underCurl(failure.curl);
      assert.equal(sent.url, request!.url, result.id);
      assert.deepEqual(sent.headers, expanded(request!.headers), result.id);
      if (request!.bodyCut === true) assert.equal(sent.bytes.length, request!.bodyBytes, result.id);
      else {
        const bytes = request!.bodyBase64 === undefined ? Buffer.from(request!.body, 'utf8') : Buffer.from(request!.bodyBase64, 'base64');
        assert.ok(bytes.equals(sent.bytes), result.id);
      }
    }
  });

  test('the JUnit report is well-formed XML with a testcase per case, and counts as the run', () => {
    const xml = renderReport(report, 'junit');
    assertWellFormedXml(xml);
    assert.equal(xml.match(/<testcase /g)?.length, report.summary.total);
    assert.equal(xml.match(/<failure /g)?.length, report.summary.failed);
    assert.equal(xml.match(/<skipped /g)?.length, report.summary.skipped);
    assert.match(xml, new RegExp(`<testsuites [^>]*tests="${report.summary.total}" failures="${report.summary.failed}"`));
  });

  test('the HTML report is one page with no reference outside it', () => {
    const html = renderReport(report, 'html');
    assert.match(html, /^<!DOCTYPE html>/);
    for (const external of [/<script/i, /<link/i, /<img/i, /<iframe/i, /\bsrc\s*=/i, /@import/i, /url\(/i]) assert.doesNotMatch(html, external);
    for (const [, target] of html.matchAll(/\bhref\s*=\s*"([^"]*)"/gi)) assert.match(target!, /^#/, `href="${target}" points outside the page`);
    for (const result of report.cases) assert.ok(html.includes(result.id), `${result.id} is in the page`);
    assert.doesNotMatch(html, new RegExp(`${ACCESS_TOKEN}|${SECRET}`), 'no credential in the page');
  });

  test('the terminal report has colours on a terminal only, and never with NO_COLOR', () => {
    assert.equal(wantsColour({ write: () => undefined, isTTY: true }, {}), true);
    assert.equal(wantsColour({ write: () => undefined, isTTY: true }, { NO_COLOR: '1' }), false);
    assert.equal(wantsColour({ write: () => undefined, isTTY: false }, {}), false);
    const render = (isTTY: boolean, colour: boolean) => {
      let text = '';
      const listen = terminalReporter({ write: (chunk) => (text += chunk), isTTY }, colour);
      for (const event of events) listen(event);
      return text;
    };
    const piped = render(false, false);
    assert.doesNotMatch(piped, /\u001b/);
    for (const result of report.cases)
      assert.match(piped, new RegExp(`^(PASS|FAIL|SKIP) \\[ *\\d+/${report.summary.total}\\] ${result.id.replaceAll('.', '\\.')} `, 'm'));
    assert.match(piped, /Summary: \d+ cases: \d+ passed, \d+ failed, \d+ skipped/);
    assert.match(piped, /reproduce:\n {5}curl -sS -i /);
    assert.match(piped, /needs a clock/);
    const live = render(true, true);
    assert.match(live, /\u001b\[31mFAIL/);
    assert.match(live, /\r\u001b\[K/);
  });
});
