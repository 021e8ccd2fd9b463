/**
 * Where a run's players and launch keys come from. A fixtures file names
 * test players the operator already holds, with launch keys listed or a
 * command that mints one; or an admin token lets the kit make fresh players
 * through Wagerlink's back office (docs/protocol.md §11). Either way the
 * file may say which games to use and how long keys and idle sessions live
 * (the expiry cases wait that long).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Type, type Static } from '@sinclair/typebox';
import { postOnce, type Attempt, type Transport } from '../clients/http-call.js';
import { raw, stringify } from '../protocol/json.js';
import { CURRENCIES, formatMinor } from '../protocol/money.js';
import { CurrencyCode, GameSlug, PlayerId } from '../protocol/schemas.js';
import { compile } from '../protocol/validate.js';

/** The fixtures' settings cannot work, found before anything is sent: the run does not start (exit 2). */
export class FixturesError extends Error {
  override name = 'FixturesError';
}

/**
 * The longest life of a key or a session the kit will wait for (s): each
 * expiry case waits about that long, and a run has a handful of them.
 */
const EXPIRY_SECONDS_MAX = 600;
/** A command that mints a key or blocks a player and has not ended in this long has failed (ms). */
const COMMAND_MS_MAX = 30_000;
/** A command's output past this is not a launch key (bytes). */
const COMMAND_OUTPUT_BYTES_MAX = 64 * 1024;
/**
 * Every player the kit makes through the back office has an id that starts
 * with this, and so do the example fixtures' players: an operator that
 * keeps test players out of its players' sight can tell them by it (the
 * sandbox's lobby does). The kit deletes nothing in an operator it checks.
 */
export const KIT_PLAYER_PREFIX = 'conformance-';
/** The games a run uses when the fixtures name none: those of examples/provider.json. */
const DEFAULT_GAMES: readonly string[] = ['dice', 'dice-high-roller'];

/** argv of a command; `{playerId}` and `{game}` in any element are replaced. */
const Command = Type.Array(Type.String({ minLength: 1 }), { minItems: 1 });
const LaunchKey = Type.String({ minLength: 1, maxLength: 256 });

export const FixturesFile = Type.Object(
  {
    description: Type.Optional(Type.String()),
    games: Type.Optional(Type.Array(GameSlug, { minItems: 1, maxItems: 2 })),
    players: Type.Optional(
      Type.Array(
        Type.Object(
          {
            playerId: PlayerId,
            currency: CurrencyCode,
            launchKeys: Type.Optional(Type.Record(Type.String(), Type.Array(LaunchKey))),
          },
          { additionalProperties: false },
        ),
        { minItems: 1 },
      ),
    ),
    launchKeyCommand: Type.Optional(Command),
    blockCommand: Type.Optional(Command),
    unblockCommand: Type.Optional(Command),
    expiry: Type.Optional(
      Type.Object(
        {
          launchKeySeconds: Type.Number({ exclusiveMinimum: 0, maximum: EXPIRY_SECONDS_MAX }),
          sessionIdleSeconds: Type.Number({ exclusiveMinimum: 0, maximum: EXPIRY_SECONDS_MAX }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type FixturesFile = Static<typeof FixturesFile>;
type Expiry = NonNullable<FixturesFile['expiry']>;

const fileCheck = compile(FixturesFile);

/** A fixtures file's JSON, checked; `origin` names it in errors. */
export function fixturesFromJson(value: unknown, origin: string): FixturesFile {
  const checked = fileCheck.check(value);
  if (!checked.ok) throw new FixturesError(`${origin}: ${checked.detail}`);
  for (const player of checked.value.players ?? []) {
    if (CURRENCIES.decimals(player.currency) === undefined) {
      throw new FixturesError(`${origin}: player ${player.playerId}: the kit knows no decimals for ${player.currency} (docs/protocol.md §4.2)`);
    }
  }
  return checked.value;
}

export async function loadFixturesFile(path: string): Promise<FixturesFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new FixturesError(`cannot read ${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new FixturesError(`${path} is not JSON: ${(error as Error).message}`);
  }
  return fixturesFromJson(value, path);
}

// ------------------------------------------------------------ the source

/** A fixture given, or why it cannot be (`unreachable`: the back office did not answer at all). */
export type Supply<T> = { ok: true; value: T } | { ok: false; reason: string; unreachable?: boolean };

interface FixturePlayer {
  playerId: string;
  currency: string;
  /** True when the player was made with exactly the balance asked for; otherwise the runner brings it there. */
  balanceSet: boolean;
}

export interface FixtureSource {
  /** Where the fixtures come from, for reports. */
  readonly label: string;
  /** The main game, and a second one if the fixtures give it. */
  readonly games: readonly string[];
  readonly expiry: Expiry | undefined;
  readonly canBlock: boolean;
  /** The players the fixtures name (none for the back office, which makes them). */
  readonly players: readonly { playerId: string; currency: string }[];
  /** A player of the currency, other than those `taken`; the back office makes one with `balance` (minor units). */
  player(currency: string, balance: bigint, taken: ReadonlySet<string>): Promise<Supply<FixturePlayer>>;
  launchKey(playerId: string, game: string): Promise<Supply<string>>;
  setBlocked(playerId: string, blocked: boolean): Promise<Supply<void>>;
}

/** What the kit's requests travel with: postOnce's part of the clients' transport. */
export type KitTransport = Pick<Transport, 'dispatcher' | 'answerMsMax' | 'world'>;

export interface FixturesSetting {
  /** A checked fixtures file, and the name to show for it. */
  file?: { content: FixturesFile; origin: string };
  /** The operator's back-office token (docs/protocol.md §11): the kit makes its own players. */
  adminToken?: string;
}

/**
 * How a back-office call travels when not over HTTP: the run's own send,
 * so that an in-process run makes its players in-process too.
 */
export type FixturePost = (request: { method: 'POST'; url: string; headers: Record<string, string>; bytes: Uint8Array }) => Promise<Attempt>;

/** The source a setting gives, or a FixturesError saying why the setting cannot work. */
export function fixtureSource(setting: FixturesSetting, endpoint: string, transport: KitTransport, send?: FixturePost): FixtureSource {
  const content: FixturesFile = setting.file?.content ?? {};
  const origin = setting.file?.origin ?? 'the fixtures';
  const games = content.games ?? (setting.adminToken === undefined ? undefined : DEFAULT_GAMES);
  if (setting.adminToken !== undefined) {
    const fileOnly = (['players', 'launchKeyCommand', 'blockCommand', 'unblockCommand'] as const).filter((name) => content[name] !== undefined);
    if (fileOnly.length > 0) {
      throw new FixturesError(`${origin}: ${fileOnly.join(', ')} cannot be used with --admin-token, which makes the players through the back office`);
    }
    return new BackOfficeSource(endpoint, setting.adminToken, games!, content.expiry, transport, send);
  }
  if (setting.file === undefined) throw new FixturesError('give --fixtures FILE, --admin-token TOKEN, or both');
  if (content.players === undefined) throw new FixturesError(`${origin}: players is required without --admin-token`);
  if (games === undefined) throw new FixturesError(`${origin}: games is required without --admin-token`);
  for (const player of content.players) {
    if (content.launchKeyCommand === undefined && (player.launchKeys?.[games[0]!]?.length ?? 0) === 0) {
      throw new FixturesError(`${origin}: player ${player.playerId} has no launchKeys for ${games[0]} and there is no launchKeyCommand`);
    }
  }
  if (content.expiry !== undefined && content.launchKeyCommand === undefined) {
    throw new FixturesError(
      `${origin}: expiry needs launchKeyCommand: keys listed in the file were minted before the run, and could expire before a case uses them`,
    );
  }
  if ((content.blockCommand === undefined) !== (content.unblockCommand === undefined)) {
    throw new FixturesError(`${origin}: blockCommand and unblockCommand go together`);
  }
  return new FileSource(origin, content, games);
}

// ------------------------------------------------------------ back office

/** Makes fresh players and keys through the back office of docs/protocol.md §11. */
class BackOfficeSource implements FixtureSource {
  readonly label: string;
  readonly canBlock = true;
  readonly players = [];
  /** Player ids of this run start with it, so that runs against one operator never meet. */
  private readonly run = `${KIT_PLAYER_PREFIX}${randomUUID().slice(0, 8)}`;
  private made = 0;

  constructor(
    private readonly endpoint: string,
    private readonly adminToken: string,
    readonly games: readonly string[],
    readonly expiry: Expiry | undefined,
    private readonly transport: KitTransport,
    private readonly sendOver?: FixturePost,
  ) {
    this.label = `the back office of ${endpoint} (docs/protocol.md §11)`;
  }

  private async post(path: string, body: unknown): Promise<{ status: number; text: string } | { status: undefined; text: string }> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.adminToken}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const url = `${this.endpoint}${path}`;
    const text = body === undefined ? '' : stringify(body);
    const answer =
      this.sendOver === undefined
        ? await postOnce(this.transport, url, headers, text)
        : await this.sendOver({ method: 'POST', url, headers, bytes: new TextEncoder().encode(text) });
    return answer.kind === 'failed' ? { status: undefined, text: answer.detail } : { status: answer.status, text: answer.text };
  }

  /** Why a back-office call did not do what it should: its answer, or that none came. */
  private refused(what: string, answer: { status: number | undefined; text: string }): { ok: false; reason: string; unreachable: boolean } {
    return { ok: false, reason: `${what}: ${answer.status ?? 'no answer'} ${answer.text.slice(0, 300)}`, unreachable: answer.status === undefined };
  }

  async player(currency: string, balance: bigint): Promise<Supply<FixturePlayer>> {
    const decimals = CURRENCIES.decimals(currency);
    if (decimals === undefined) return { ok: false, reason: `the kit knows no decimals for ${currency}` };
    const playerId = `${this.run}-${++this.made}`;
    const answer = await this.post('/admin/players', { playerId, currency, balance: raw(formatMinor(balance, decimals)) });
    if (answer.status !== 201) return this.refused(`the back office did not make a ${currency} player`, answer);
    return { ok: true, value: { playerId, currency, balanceSet: true } };
  }

  async launchKey(playerId: string, game: string): Promise<Supply<string>> {
    const answer = await this.post('/admin/launch-keys', { playerId, game });
    if (answer.status !== 201) return this.refused('the back office minted no launch key', answer);
    let key: unknown;
    try {
      key = (JSON.parse(answer.text) as { key?: unknown } | null)?.key;
    } catch {
      key = undefined;
    }
    return typeof key === 'string' ? { ok: true, value: key } : { ok: false, reason: `the back office answered no key: ${answer.text.slice(0, 300)}` };
  }

  async setBlocked(playerId: string, blocked: boolean): Promise<Supply<void>> {
    const answer = await this.post(`/admin/players/${encodeURIComponent(playerId)}/${blocked ? 'block' : 'unblock'}`, undefined);
    if (answer.status !== 200) return this.refused(`the back office did not ${blocked ? 'block' : 'unblock'} ${playerId}`, answer);
    return { ok: true, value: undefined };
  }
}

// ------------------------------------------------------------ a file

/** Players of a fixtures file, with their listed keys or a command that mints them. */
class FileSource implements FixtureSource {
  readonly label: string;
  readonly players: readonly { playerId: string; currency: string }[];
  readonly canBlock: boolean;
  readonly expiry: Expiry | undefined;
  /** Listed keys not used yet, by player and game. */
  private readonly unused = new Map<string, string[]>();

  constructor(
    origin: string,
    private readonly content: FixturesFile,
    readonly games: readonly string[],
  ) {
    this.label = origin;
    this.players = (content.players ?? []).map(({ playerId, currency }) => ({ playerId, currency }));
    this.canBlock = content.blockCommand !== undefined;
    this.expiry = content.expiry;
    for (const player of content.players ?? []) {
      for (const [game, keys] of Object.entries(player.launchKeys ?? {})) this.unused.set(`${player.playerId}\u0000${game}`, [...keys]);
    }
  }

  async player(currency: string, _balance: bigint, taken: ReadonlySet<string>): Promise<Supply<FixturePlayer>> {
    const found = (this.content.players ?? []).find((player) => player.currency === currency && !taken.has(player.playerId));
    if (found === undefined) {
      const count = (this.content.players ?? []).filter((player) => player.currency === currency).length;
      return {
        ok: false,
        reason: `the fixtures have ${count === 0 ? 'no' : `only ${count}`} ${currency} player${count === 1 ? '' : 's'}; the case needs ${taken.size + 1}`,
      };
    }
    return { ok: true, value: { playerId: found.playerId, currency, balanceSet: false } };
  }

  async launchKey(playerId: string, game: string): Promise<Supply<string>> {
    const listed = this.unused.get(`${playerId}\u0000${game}`);
    if (listed !== undefined && listed.length > 0) return { ok: true, value: listed.shift()! };
    if (this.content.launchKeyCommand === undefined)
      return { ok: false, reason: `the fixtures have no launch key left for ${playerId} on ${game}, and no launchKeyCommand` };
    const output = await runCommand(this.content.launchKeyCommand, { playerId, game });
    if (!output.ok) return output;
    return keyFromOutput(output.value);
  }

  async setBlocked(playerId: string, blocked: boolean): Promise<Supply<void>> {
    const command = blocked ? this.content.blockCommand : this.content.unblockCommand;
    if (command === undefined) return { ok: false, reason: 'the fixtures give no blockCommand' };
    const output = await runCommand(command, { playerId, game: this.games[0]! });
    return output.ok ? { ok: true, value: undefined } : output;
  }
}

/** A key printed by a command: the whole output, or the `key` of a JSON object (as `wagerlink operator launch-key` prints). */
export function keyFromOutput(stdout: string): Supply<string> {
  const text = stdout.trim();
  let key: unknown = text;
  if (text.startsWith('{')) {
    try {
      key = (JSON.parse(text) as { key?: unknown }).key;
    } catch {
      key = undefined;
    }
  }
  if (typeof key !== 'string' || key.length === 0 || key.length > 256 || /\s/.test(key)) {
    return { ok: false, reason: `launchKeyCommand printed no launch key (the key alone, or JSON with "key"): ${JSON.stringify(text.slice(0, 200))}` };
  }
  return { ok: true, value: key };
}

function runCommand(argv: readonly string[], values: { playerId: string; game: string }): Promise<Supply<string>> {
  const [file, ...args] = argv.map((part) => part.replaceAll('{playerId}', values.playerId).replaceAll('{game}', values.game));
  return new Promise((resolve) => {
    execFile(file!, args, { timeout: COMMAND_MS_MAX, maxBuffer: COMMAND_OUTPUT_BYTES_MAX, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error)
        resolve({
          ok: false,
          reason: `${argv.join(' ')} failed for ${values.playerId}: ${error.message.split('\n')[0]}${stderr ? `: ${stderr.trim().slice(0, 300)}` : ''}`,
        });
      else resolve({ ok: true, value: stdout });
    });
  });
}
