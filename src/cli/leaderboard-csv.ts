/**
 * A leaderboard file for `wagerlink provider payouts import`: CSV as
 * RFC 4180 has it (fields separated by commas, records by CRLF or LF,
 * fields in double quotes may hold commas, line breaks and "" for a quote),
 * UTF-8 with or without a byte order mark, and a header row naming the
 * columns playerId, currency, amount and, optionally, payoutId, in any
 * order. Nothing here reads a file or the network: the command does.
 *
 * Hand-written rather than a dependency: the format is this small, and the
 * reader must tell the line each record starts on, quoted line breaks
 * counted, to name every bad line before anything is sent.
 */
import { CURRENCIES, decimalFromString, toMinor } from '../protocol/money.js';
import { playerIdProblem, withInvisibleEscaped } from '../protocol/player-id.js';
import { CurrencyCode, PlayerId, Uuid } from '../protocol/schemas.js';
import { compile } from '../protocol/validate.js';

interface CsvRecord {
  /** The line (1-based) the record starts on. */
  line: number;
  fields: string[];
}

export type CsvRead = { ok: true; records: CsvRecord[] } | { ok: false; line: number; problem: string };

const BOM = '\uFEFF';

/** Splits RFC 4180 text into records; a malformed quote is a problem on its line. An empty last line ends the file. */
export function parseCsv(text: string): CsvRead {
  const input = text.startsWith(BOM) ? text.slice(BOM.length) : text;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let recordLine = 1;
  let i = 0;
  const endRecord = () => {
    fields.push(field);
    records.push({ line: recordLine, fields });
    fields = [];
    field = '';
  };
  while (i < input.length) {
    const char = input[i]!;
    if (char === '"') {
      if (field.length > 0) return { ok: false, line, problem: 'a quote inside an unquoted field (quote the whole field and double the quote)' };
      const opened = line;
      i += 1;
      for (;;) {
        if (i >= input.length) return { ok: false, line: opened, problem: 'a quoted field is never closed' };
        const inner = input[i]!;
        if (inner === '"') {
          if (input[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        if (inner === '\n') line += 1;
        field += inner;
        i += 1;
      }
      const after = input[i];
      if (after !== undefined && after !== ',' && after !== '\n' && !(after === '\r' && input[i + 1] === '\n')) {
        return { ok: false, line, problem: 'text after a closing quote (a field is quoted whole)' };
      }
      continue;
    }
    if (char === ',') {
      fields.push(field);
      field = '';
      i += 1;
      continue;
    }
    if (char === '\r' && input[i + 1] === '\n') {
      endRecord();
      i += 2;
      line += 1;
      recordLine = line;
      continue;
    }
    if (char === '\n') {
      endRecord();
      i += 1;
      line += 1;
      recordLine = line;
      continue;
    }
    field += char;
    i += 1;
  }
  if (field.length > 0 || fields.length > 0) endRecord();
  return { ok: true, records };
}

export interface LeaderboardRow {
  line: number;
  playerId: string;
  currency: string;
  /** Decimal text as written, sent as text: never rounded on the way. */
  amount: string;
  payoutId?: string;
}

interface LineProblem {
  line: number;
  problem: string;
}

export type LeaderboardRead = { ok: true; rows: LeaderboardRow[] } | { ok: false; problems: LineProblem[] };

const LEADERBOARD_COLUMNS = ['playerId', 'currency', 'amount', 'payoutId'] as const;
const REQUIRED = ['playerId', 'currency', 'amount'] as const;

/**
 * A field without the spaces and tabs around it, which a spreadsheet's
 * columns leave. Only those: String.trim() would also drop a no-break space
 * or a byte order mark, and turn a look-alike id ("alice\u00a0") into the
 * id it imitates instead of refusing it (docs/protocol.md §5.4).
 */
function spacesTrimmed(field: string): string {
  return field.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** The protocol's rules of these fields, checked before anything is sent. */
const fieldRules = { playerId: compile(PlayerId), currency: compile(CurrencyCode), payoutId: compile(Uuid) };

/**
 * Reads and checks a whole leaderboard: every bad line is reported, with
 * its number, or none is and every row is returned. A player listed twice,
 * or a payout id used twice, is a problem: one import pays one prize per
 * player of a campaign.
 */
export function readLeaderboard(text: string): LeaderboardRead {
  const parsed = parseCsv(text);
  if (!parsed.ok) return { ok: false, problems: [{ line: parsed.line, problem: parsed.problem }] };
  const [header, ...records] = parsed.records.filter((record) => !(record.fields.length === 1 && record.fields[0]!.trim() === ''));
  if (header === undefined)
    return { ok: false, problems: [{ line: 1, problem: 'the file is empty: a header row playerId,currency,amount[,payoutId] comes first' }] };
  const names = header.fields.map((name) => name.trim());
  const problems: LineProblem[] = [];
  const unknown = names.filter((name) => !(LEADERBOARD_COLUMNS as readonly string[]).includes(name));
  const missing = REQUIRED.filter((name) => !names.includes(name));
  const repeated = names.filter((name, index) => names.indexOf(name) !== index);
  if (unknown.length > 0 || missing.length > 0 || repeated.length > 0) {
    const said = [
      ...(missing.length > 0 ? [`missing ${missing.join(', ')}`] : []),
      ...(unknown.length > 0 ? [`unknown ${unknown.join(', ')}`] : []),
      ...(repeated.length > 0 ? [`repeated ${repeated.join(', ')}`] : []),
    ];
    return { ok: false, problems: [{ line: header.line, problem: `header: ${said.join('; ')} (columns: playerId,currency,amount[,payoutId])` }] };
  }
  if (records.length === 0) return { ok: false, problems: [{ line: header.line, problem: 'no rows after the header' }] };
  const rows: LeaderboardRow[] = [];
  const players = new Map<string, number>();
  const payoutIds = new Map<string, number>();
  for (const record of records) {
    if (record.fields.length !== names.length) {
      problems.push({ line: record.line, problem: `${record.fields.length} fields, the header has ${names.length}` });
      continue;
    }
    const value = (name: string) => spacesTrimmed(record.fields[names.indexOf(name)] ?? '');
    const playerId = value('playerId');
    const currency = value('currency');
    const amount = value('amount');
    const payoutId = names.includes('payoutId') && value('payoutId') !== '' ? value('payoutId').toLowerCase() : undefined;
    const wrong: string[] = [];
    if (!fieldRules.playerId.check(playerId).ok) {
      const why = playerIdProblem(playerId) ?? '1 to 128 characters';
      wrong.push(`playerId: "${withInvisibleEscaped(playerId)}" must be a player id (docs/protocol.md §5.4): ${why}`);
    }
    if (!fieldRules.currency.check(currency).ok) wrong.push(`currency: "${currency}" must be a currency code such as EUR`);
    const decimal = decimalFromString(amount);
    if (decimal === undefined) {
      wrong.push(`amount: "${amount}" must be decimal text such as 50.00`);
    } else {
      const decimals = CURRENCIES.decimals(currency);
      if (decimal.units === 0n) wrong.push('amount: must be greater than 0');
      // A currency this side does not know (a configured crypto code) is checked by the provider.
      else if (decimals !== undefined && toMinor(decimal, decimals) === undefined)
        wrong.push(`amount: ${amount} has more than ${decimals} decimals for ${currency}`);
    }
    if (payoutId !== undefined && !fieldRules.payoutId.check(payoutId).ok) wrong.push(`payoutId: "${payoutId}" must be a UUID`);
    if (players.has(playerId)) wrong.push(`player ${playerId} is also on line ${players.get(playerId)}`);
    else players.set(playerId, record.line);
    if (payoutId !== undefined) {
      if (payoutIds.has(payoutId)) wrong.push(`payoutId ${payoutId} is also on line ${payoutIds.get(payoutId)}`);
      else payoutIds.set(payoutId, record.line);
    }
    if (wrong.length > 0) {
      problems.push({ line: record.line, problem: wrong.join('; ') });
      continue;
    }
    rows.push({ line: record.line, playerId, currency, amount, ...(payoutId === undefined ? {} : { payoutId }) });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, rows };
}
