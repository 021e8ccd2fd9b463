/**
 * Operators that break the interface on purpose, for the kit to catch.
 *
 * `faultyProxy` puts a proxy in front of our operator that breaks one rule
 * the way a real wallet might, and passes everything else through as it
 * came. It breaks validly signed wallet calls only (but for the fault that
 * is the signature's), so that the kit's failures point at the fault.
 *
 * `strangerEndpoint` is not an operator or a provider at all: it answers
 * 200 `{"balance":100}` to every request, the back office's among them.
 *
 * `trivialOperator` is a tiny operator of its own that answers every call
 * the same way: `yes` books nothing and answers 200 with the opening
 * balance, and has one session per player; `no` refuses every /transaction
 * and /payout with 400 and opens a new session on every /authenticate. A
 * case that passes against both checks nothing.
 */
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { errorType } from '../../src/protocol/errors.js';
import { sign, verifySignature } from '../../src/protocol/signing.js';
import { SECRET } from '../helpers.js';

export type Fault = 'debit-twice' | 'float-amounts' | 'signature-unchecked' | 'partial' | 'closed-round-reopened' | 'conflict-200' | 'player-id-tidied';

export interface Listening {
  origin: string;
  close: () => Promise<void>;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

const WALLET_PATHS = new Set(['/authenticate', '/transaction', '/payout']);
/** The headers a wallet call or a back-office call carries through the proxy. */
const FORWARDED = ['content-type', 'authorization', 'x-server-authorization'];

async function readBody(incoming: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function reply(outgoing: ServerResponse, answer: Answer): void {
  outgoing.writeHead(answer.status, answer.contentType === '' ? {} : { 'content-type': answer.contentType });
  outgoing.end(answer.text);
}

async function listen(server: Server): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function problem(status: number, code: string, detail: string, balance?: string): Answer {
  const text = `{"type":"${errorType(code as never)}","title":"${code}","status":${status},"code":"${code}","detail":${JSON.stringify(detail)}${balance === undefined ? '' : `,"balance":${balance}`}}`;
  return { status, contentType: 'application/problem+json', text };
}

// ------------------------------------------------------------------ proxy

/** Characters a tidying wallet drops from an id: controls, format characters, spaces other than U+0020. */
const DROPPED = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}/gu;
/** Cyrillic letters drawn as Latin ones, read as the Latin letter. */
const AS_LATIN: Record<string, string> = { '\u0430': 'a', '\u0435': 'e', '\u043e': 'o', '\u0440': 'p', '\u0441': 'c', '\u0445': 'x' };

/** A player id as a wallet that "cleans up" ids would look it up: trimmed, invisible characters dropped, NFC, look-alikes read as Latin. */
function tidied(id: string): string {
  return [...id.replace(DROPPED, '').trim().normalize('NFC')].map((char) => AS_LATIN[char] ?? char).join('');
}

/** Every occurrence of each id (in any letter case) replaced by another. */
function renamed(text: string, ids: Iterable<string>): string {
  let out = text;
  for (const id of ids) out = out.replace(new RegExp(id.replace(/[-]/g, '\\-'), 'gi'), randomUUID());
  return out;
}

// eslint-disable-next-line max-lines-per-function -- the proxy's faults, a short branch each, around one request's relay
export async function faultyProxy(backend: string, fault: Fault): Promise<Listening> {
  const forward = async (path: string, headers: Record<string, string>, body: Buffer | string): Promise<Answer> => {
    const response = await request(`${backend}${path}`, { method: 'POST', headers, body });
    return { status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), text: await response.body.text() };
  };
  const resigned = (headers: Record<string, string>, body: string | Buffer) => ({ ...headers, 'x-server-authorization': sign(SECRET, body) });
  /** Ids the backend booked (answered 200), lower case: what debit-twice books again. */
  const booked = new Set<string>();

  const server = createServer((incoming, outgoing) => {
    void (async () => {
      const bytes = await readBody(incoming);
      const path = incoming.url ?? '/';
      const headers = Object.fromEntries(FORWARDED.flatMap((name) => (incoming.headers[name] === undefined ? [] : [[name, String(incoming.headers[name])]])));
      if (incoming.method !== 'POST') {
        const response = await request(`${backend}${path}`, { method: incoming.method as 'GET', headers });
        return reply(outgoing, { status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), text: await response.body.text() });
      }
      const signed = verifySignature([SECRET], headers['x-server-authorization'], bytes);
      // Bodies that are not text pass as they came: a faulty wallet that decoded them would fail cases of its own making.
      const broke = WALLET_PATHS.has(path) && (fault === 'signature-unchecked' || (signed && isUtf8(bytes)));
      if (!broke) return reply(outgoing, await forward(path, headers, bytes));
      const text = bytes.toString('utf8');
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = undefined;
      }
      reply(outgoing, await broken(path, headers, bytes, text, body));
    })().catch((error: unknown) => {
      outgoing.writeHead(502);
      outgoing.end(String(error));
    });
  });

  // eslint-disable-next-line max-lines-per-function -- a test helper: one scripted behaviour per case, read as one list
  async function broken(
    path: string,
    headers: Record<string, string>,
    bytes: Buffer,
    text: string,
    body: Record<string, unknown> | undefined,
  ): Promise<Answer> {
    const transactions = Array.isArray(body?.transactions) ? (body.transactions as Record<string, unknown>[]) : undefined;
    switch (fault) {
      case 'signature-unchecked':
        // As if the operator never looked at the signature: every body goes on as if well signed.
        return forward(path, resigned(headers, bytes), bytes);
      case 'debit-twice': {
        // A wallet that keys idempotency on something else than the ids: a repeat books again.
        const ids = path === '/payout' ? [String(body?.payoutId)] : (transactions ?? []).map((each) => String(each.id));
        const seen = ids.filter((id) => booked.has(id.toLowerCase()));
        const again = seen.length === 0 ? undefined : renamed(text, seen);
        const answer = again === undefined ? await forward(path, headers, bytes) : await forward(path, resigned(headers, again), again);
        if (answer.status === 200) for (const id of ids) booked.add(id.toLowerCase());
        return answer;
      }
      case 'float-amounts': {
        // A wallet that keeps money in doubles, rounded to cents: amounts are parsed, rounded and written back, and so are balances.
        if (body === undefined || path === '/authenticate') return forward(path, headers, bytes);
        const cents = (value: unknown) => (typeof value === 'number' ? Math.round(value * 100) / 100 : value);
        const rounded =
          path === '/payout'
            ? { ...body, amount: cents(body.amount) }
            : {
                ...body,
                transactions: (transactions ?? []).map((each) => ({
                  ...each,
                  amount: cents(each.amount),
                  ...('jpAmount' in each ? { jpAmount: cents(each.jpAmount) } : {}),
                })),
              };
        const sent = JSON.stringify(rounded);
        const answer = await forward(path, resigned(headers, sent), sent);
        try {
          return { ...answer, text: JSON.stringify(JSON.parse(answer.text)) };
        } catch {
          return answer;
        }
      }
      case 'partial': {
        // A wallet that books a request's transactions one by one and stops at the first refusal, keeping the ones before it.
        if (path !== '/transaction' || transactions === undefined || transactions.length < 2) return forward(path, headers, bytes);
        const round = body!.round as Record<string, unknown>;
        let answer: Answer | undefined;
        for (const [i, each] of transactions.entries()) {
          const last = i === transactions.length - 1;
          const one = JSON.stringify({ ...body, transactions: [each], round: { ...round, finished: last ? round.finished : false } });
          answer = await forward(path, resigned(headers, one), one);
          if (answer.status !== 200) return answer;
        }
        return answer!;
      }
      case 'closed-round-reopened': {
        // A wallet whose closed rounds take new transactions all the same: told the round is closed, the
        // proxy books the request again as a round of its own (new round and transaction ids, which the
        // refusal did not use up), and answers that.
        const answer = await forward(path, headers, bytes);
        if (path !== '/transaction' || answer.status !== 409 || !answer.text.includes('"ROUND_CLOSED"')) return answer;
        const roundId = String((body?.round as Record<string, unknown> | undefined)?.id);
        const sent = renamed(text, [roundId, ...(transactions ?? []).map((each) => String(each.id))]);
        return forward(path, resigned(headers, sent), sent);
      }
      case 'player-id-tidied': {
        // A wallet that tidies a player id before it looks the player up: a look-alike of the session's player is booked to that player.
        if (path !== '/transaction' || typeof body?.playerId !== 'string') return forward(path, headers, bytes);
        const sent = JSON.stringify({ ...body, playerId: tidied(body.playerId) });
        return forward(path, resigned(headers, sent), sent);
      }
      case 'conflict-200': {
        // A wallet that answers a conflicting duplicate as if it were a replay.
        const answer = await forward(path, headers, bytes);
        if (answer.status !== 409 || !answer.text.includes('"DUPLICATE_CONFLICT"')) return answer;
        const balance = /"balance":(-?[0-9.eE+-]+)/.exec(answer.text)?.[1] ?? '0';
        return { status: 200, contentType: 'application/json', text: `{"balance":${balance}}` };
      }
    }
  }

  return listen(server);
}

// ---------------------------------------------------------- a stranger

/** The same 200 `{"balance":100}` to every request, whatever its path, method or body. */
export async function strangerEndpoint(): Promise<Listening> {
  const server = createServer((incoming, outgoing) => {
    void readBody(incoming).then(() => reply(outgoing, { status: 200, contentType: 'application/json', text: '{"balance":100}' }));
  });
  return listen(server);
}

// ---------------------------------------------------------- trivial ones

export type Trivial = 'yes' | 'no';

export async function trivialOperator(kind: Trivial): Promise<Listening> {
  const players = new Map<string, { currency: string; balance: string; session: string }>();
  const keys = new Map<string, string>();
  const sessions = new Map<string, string>();

  const server = createServer((incoming, outgoing) => {
    void (async () => {
      const text = (await readBody(incoming)).toString('utf8');
      const path = incoming.url ?? '/';
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = {};
      }
      const json = (status: number, value: string) => reply(outgoing, { status, contentType: 'application/json', text: value });
      if (path === '/admin/players') {
        const balance = /"balance":(-?[0-9.eE+-]+)/.exec(text)?.[1] ?? '0';
        players.set(String(body.playerId), { currency: String(body.currency), balance, session: randomUUID() });
        return json(
          201,
          JSON.stringify({ playerId: body.playerId, currency: body.currency, blocked: false, country: null }).replace('}', `,"balance":${balance}}`),
        );
      }
      if (path === '/admin/launch-keys') {
        const key = randomUUID();
        keys.set(key, String(body.playerId));
        return json(201, JSON.stringify({ key, expiresAt: new Date().toISOString() }));
      }
      if (path.startsWith('/admin/players/')) return json(200, '{}');
      if (path === '/authenticate') {
        const playerId = keys.get(String(body.key));
        const player = playerId === undefined ? undefined : players.get(playerId);
        if (player === undefined) {
          if (kind === 'no') return reply(outgoing, problem(401, 'INVALID_LAUNCH_KEY', 'unknown key'));
          return json(200, `{"sessionId":"${randomUUID()}","playerId":"nobody","currency":"EUR","balance":0,"country":""}`);
        }
        const sessionId = kind === 'yes' ? player.session : randomUUID();
        sessions.set(sessionId, playerId!);
        return json(
          200,
          `{"sessionId":"${sessionId}","playerId":${JSON.stringify(playerId)},"currency":"${player.currency}","balance":${player.balance},"country":""}`,
        );
      }
      if (path === '/transaction' || path === '/payout') {
        if (kind === 'no') return reply(outgoing, problem(400, 'INVALID_REQUEST', 'refused'));
        const playerId = sessions.get(String(body.sessionId));
        return json(200, `{"balance":${playerId === undefined ? '0' : players.get(playerId)!.balance}}`);
      }
      return reply(outgoing, problem(404, 'NOT_FOUND', `no route for ${path}`));
    })().catch((error: unknown) => {
      outgoing.writeHead(502);
      outgoing.end(String(error));
    });
  });
  return listen(server);
}
