/**
 * The curl command that sends a request again exactly: the same headers,
 * the signature among them, and the same body bytes. Bodies of printable
 * UTF-8 text are written inline; others (bytes that are not UTF-8, control
 * characters, a long run of one byte such as the padding of a body at the
 * size limit) are made by printf and head, byte for byte, and piped in.
 *
 * The access token is not written out: the command reads it from
 * $ACCESS_TOKEN, so that a report can travel without the credential.
 */
import { isUtf8 } from 'node:buffer';

export interface RecordedRequest {
  url: string;
  headers: Readonly<Record<string, string>>;
  bytes: Uint8Array;
}

/** The shell variable a command reads the access token from. */
export const ACCESS_TOKEN_VARIABLE = 'ACCESS_TOKEN';
/** Where the access token stood in a recorded header. */
export const ACCESS_TOKEN_PLACEHOLDER = `\${${ACCESS_TOKEN_VARIABLE}}`;

/** Bodies longer than this are made by a generator rather than written inline (bytes): a command stays readable. */
const INLINE_BYTES_MAX = 16 * 1024;
/** A run of one byte this long is written as `head -c N /dev/zero | tr`, not byte by byte. */
const RUN_BYTES_MIN = 64;
/** curl asks for 100-continue before larger bodies, which some servers do not answer (bytes). */
const EXPECT_CONTINUE_BYTES_MIN = 1024;

/** A shell word in single quotes. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A header's value as a shell word; the access token placeholder stays outside quotes so that the shell expands it. */
function headerWord(name: string, value: string): string {
  const text = `${name}: ${value}`;
  if (!text.includes(ACCESS_TOKEN_PLACEHOLDER)) return shellQuote(text);
  return text
    .split(ACCESS_TOKEN_PLACEHOLDER)
    .map((part) => (part === '' ? '' : shellQuote(part)))
    .join(`"${ACCESS_TOKEN_PLACEHOLDER}"`);
}

function inlineable(bytes: Uint8Array): boolean {
  if (bytes.length > INLINE_BYTES_MAX || !isUtf8(bytes) || bytes[0] === 0x40 /* @: curl would read a file */) return false;
  for (const byte of bytes) {
    if ((byte < 0x20 && byte !== 0x0a && byte !== 0x09) || byte === 0x7f) return false;
  }
  return longestRun(bytes) < RUN_BYTES_MIN;
}

function longestRun(bytes: Uint8Array): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < bytes.length; i++) {
    run = i > 0 && bytes[i] === bytes[i - 1] ? run + 1 : 1;
    if (run > longest) longest = run;
  }
  return longest;
}

const octal = (byte: number) => `\\${byte.toString(8).padStart(3, '0')}`;

/** A printf format that prints exactly these bytes. */
function printfFormat(bytes: Uint8Array): string {
  let format = '';
  for (const byte of bytes) {
    if (byte === 0x25) format += '%%';
    else if (byte === 0x5c) format += '\\\\';
    else if (byte >= 0x20 && byte < 0x7f && byte !== 0x27) format += String.fromCharCode(byte);
    else format += octal(byte);
  }
  return `printf '${format}'`;
}

/** Shell commands that together print exactly these bytes: printf for text, head and tr for long runs of one byte. */
function generator(bytes: Uint8Array): string {
  const parts: string[] = [];
  let start = 0;
  let i = 0;
  while (i < bytes.length) {
    let end = i + 1;
    while (end < bytes.length && bytes[end] === bytes[i]) end++;
    if (end - i >= RUN_BYTES_MIN) {
      if (i > start) parts.push(printfFormat(bytes.subarray(start, i)));
      const run = `head -c ${end - i} /dev/zero`;
      parts.push(bytes[i] === 0 ? run : `${run} | tr '\\000' '${octal(bytes[i]!)}'`);
      start = end;
    }
    i = end;
  }
  if (start < bytes.length || parts.length === 0) parts.push(printfFormat(bytes.subarray(start)));
  return parts.length === 1 ? parts[0]! : `{ ${parts.join('; ')}; }`;
}

/** The curl command for one request. */
export function curlCommand(request: RecordedRequest): string {
  const lines = [`curl -sS -i ${shellQuote(request.url)}`];
  const headers = Object.entries(request.headers);
  for (const [name, value] of headers) lines.push(`-H ${headerWord(name, value)}`);
  // curl adds a form content type to a body sent without one; an empty header makes it send none, as the request did.
  if (!headers.some(([name]) => name.toLowerCase() === 'content-type')) lines.push(`-H 'content-type:'`);
  if (request.bytes.length > EXPECT_CONTINUE_BYTES_MIN) lines.push(`-H 'expect:'`);
  if (inlineable(request.bytes)) {
    lines.push(`--data-binary ${shellQuote(Buffer.from(request.bytes).toString('utf8'))}`);
    return lines.join(' \\\n  ');
  }
  lines.push('--data-binary @-');
  return `${generator(request.bytes)} |\n  ${lines.join(' \\\n  ')}`;
}

/** The curl command for a GET as a browser sends one (opening a launch URL): no body, following redirects. */
export function getCurl(request: RecordedRequest): string {
  return [`curl -sS -i -L ${shellQuote(request.url)}`, ...Object.entries(request.headers).map(([name, value]) => `-H ${shellQuote(`${name}: ${value}`)}`)].join(
    ' \\\n  ',
  );
}

/** Commands that send requests all at once, as a parallel step did: in the background, then wait for all. */
export function parallelCurl(requests: readonly RecordedRequest[]): string {
  const commands = requests.map(curlCommand);
  if (commands.length > 0 && commands.every((command) => command === commands[0])) {
    return `for i in $(seq ${commands.length}); do\n  ${commands[0]!.replaceAll('\n', '\n  ')} &\ndone; wait`;
  }
  return `${commands.map((command) => `${command} &`).join('\n')}\nwait`;
}
