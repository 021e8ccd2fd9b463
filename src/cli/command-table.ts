/**
 * What `wagerlink` understands, as data: every option once (its argument and
 * what it does, in words), every command once (its words, arguments and
 * options), and the groups that hold them. Every usage text the command
 * prints, the global one, a group's and a command's own, is derived from
 * these tables, and so is the check of a command line: an option a command
 * does not take is a usage error, named, with that command's usage after it.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  database: { type: 'string' },
  'database-file': { type: 'string' },
  workers: { type: 'string' },
  currency: { type: 'string' },
  balance: { type: 'string' },
  country: { type: 'string' },
  type: { type: 'string' },
  amount: { type: 'string' },
  id: { type: 'string' },
  reason: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  game: { type: 'string' },
  integration: { type: 'string' },
  config: { type: 'string' },
  mode: { type: 'string' },
  language: { type: 'string' },
  lobby: { type: 'string' },
  deposit: { type: 'string' },
  refresh: { type: 'string' },
  games: { type: 'string' },
  currencies: { type: 'string' },
  provider: { type: 'string' },
  'admin-token': { type: 'string' },
  role: { type: 'string' },
  'expires-days': { type: 'string' },
  operators: { type: 'string' },
  name: { type: 'string' },
  ranges: { type: 'string' },
  'provider-url': { type: 'string' },
  finish: { type: 'boolean' },
  'no-secret': { type: 'boolean' },
  'no-token': { type: 'boolean' },
  'admin-token-file': { type: 'string' },
  operator: { type: 'string' },
  player: { type: 'string' },
  campaign: { type: 'string' },
  payout: { type: 'string' },
  status: { type: 'string' },
  reference: { type: 'string' },
  'operator-id': { type: 'string' },
  'wallet-id': { type: 'string' },
  endpoint: { type: 'string' },
  secret: { type: 'string' },
  'secret-file': { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  fixtures: { type: 'string' },
  report: { type: 'string', multiple: true },
  only: { type: 'string', multiple: true },
  bail: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  verbose: { type: 'boolean' },
} satisfies ParseArgsConfig['options'];

export type OptionName = keyof typeof OPTIONS;

export type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** Each option's argument as the usage shows it, and what it does; the type makes every option have one. */
const OPTION_TEXT: Record<OptionName, { arg?: string; text: string }> = {
  host: { arg: 'H', text: 'address to listen on (or WAGERLINK_HOST)' },
  port: { arg: 'P', text: 'port to listen on, 0..65535' },
  database: {
    arg: 'PATH|URL',
    text: "a SQLite file or a postgres:// URL (the operator's: or WAGERLINK_DATABASE; provider serve: instead of the config's database); a URL's password is better in PGPASSWORD or --database-file",
  },
  'database-file': { arg: 'FILE', text: 'a file holding --database, for a URL with a password in it' },
  workers: { arg: 'N|auto', text: 'processes sharing the port; more than 1 needs PostgreSQL (or WAGERLINK_WORKERS)' },
  currency: { arg: 'C', text: 'a currency code such as EUR' },
  balance: { arg: 'A', text: 'the opening balance, a decimal such as 100.00 (default 0)' },
  country: { arg: 'CC', text: 'an ISO 3166-1 alpha-2 country code such as DE' },
  type: { arg: 'deposit|withdrawal', text: 'which way the money moves' },
  amount: { arg: 'A', text: "a decimal such as 10.00, within the currency's decimals" },
  id: { arg: 'UUID', text: "the adjustment's id, so that running it again books it once (default a new one)" },
  reason: { arg: 'TEXT', text: 'why, kept with the record' },
  limit: { arg: 'N', text: 'at most N items (default 50)' },
  cursor: { arg: 'C', text: 'the page after this cursor (from the previous page)' },
  game: { arg: 'SLUG', text: 'a game the provider offers, such as dice' },
  integration: { arg: 'ID', text: 'the integration whose game it launches: only its /authenticate opens the key (default any)' },
  config: { arg: 'FILE', text: "the provider's JSON config (see examples/provider.json)" },
  mode: { arg: 'real|fun', text: 'real money, or fun play without a player (default real)' },
  language: { arg: 'TAG', text: "the page's language, a BCP 47 tag (default en)" },
  lobby: { arg: 'URL', text: "where the page's lobby button leads" },
  deposit: { arg: 'URL', text: "where the page's deposit button leads" },
  refresh: { arg: 'URL', text: 'what the page opens to start again' },
  games: { arg: 'SLUG[,SLUG]', text: 'games, comma-separated' },
  currencies: { arg: 'C[,C]', text: 'currency codes, comma-separated' },
  provider: { arg: 'URL', text: "the provider's base URL (or WAGERLINK_PROVIDER_URL)" },
  'admin-token': {
    arg: 'T',
    text: 'a back-office bearer token (provider commands: or WAGERLINK_PROVIDER_ADMIN_TOKEN; conformance: or WAGERLINK_CONFORMANCE_ADMIN_TOKEN)',
  },
  'admin-token-file': { arg: 'FILE', text: 'a file holding --admin-token' },
  role: { arg: 'ROLE', text: 'read-only, support, payments or admin (docs/operator.md: staff accounts)' },
  'expires-days': { arg: 'N', text: "the token's life in days, 1..366 (default 90)" },
  operators: { arg: 'ID[,ID]', text: 'the operators the account may see and act on (default all)' },
  name: { arg: 'TEXT', text: "the integration's display name" },
  ranges: { arg: 'CIDR[,CIDR]', text: 'caller addresses or CIDR ranges the integration may call from; empty: any (default any)' },
  'provider-url': { arg: 'URL', text: "the studio's provider endpoint, for launch URLs and game bets; empty: none" },
  finish: { text: 'finish the rotation: the next secret becomes the current one, older tokens are dropped' },
  'no-secret': { text: 'begin the rotation without a new secret' },
  'no-token': { text: 'begin the rotation without a new token' },
  operator: { arg: 'ID', text: 'the operator the players play at' },
  player: { arg: 'ID', text: "the operator's player id" },
  campaign: { arg: 'UUID', text: "the tournament's campaign id" },
  payout: { arg: 'UUID', text: "the payout's id (default derived from operator, campaign and player)" },
  status: { arg: 'S', text: 'pending (default), parked, refused, sent, skipped or resolved' },
  reference: { arg: 'REF', text: "the operator's reference of what it booked" },
  'operator-id': { arg: 'ID', text: "this operator's id at the provider (or WAGERLINK_OPERATOR_ID)" },
  'wallet-id': { arg: 'ID', text: 'the walletId the provider issued (or WAGERLINK_WALLET_ID)' },
  endpoint: { arg: 'URL', text: "the operator endpoint's base URL" },
  secret: { arg: 'S', text: "the integration's shared secret (or WAGERLINK_CONFORMANCE_SECRET)" },
  'secret-file': { arg: 'FILE', text: 'a file holding --secret' },
  token: { arg: 'T', text: 'an access token the operator accepts (or WAGERLINK_CONFORMANCE_TOKEN)' },
  'token-file': { arg: 'FILE', text: 'a file holding --token' },
  fixtures: { arg: 'FILE', text: 'test players and games (docs/conformance.md)' },
  report: { arg: 'FILE', text: 'also write a report, .json, .xml or .html; may be repeated' },
  only: { arg: 'AREA|CASE', text: 'run only these areas or cases; may be repeated' },
  bail: { text: 'stop at the first case that fails' },
  json: { text: 'print the result as JSON, for machines' },
  help: { text: 'print this help' },
  version: { text: 'print the version' },
  verbose: { text: 'on an error, print its stack trace too (or WAGERLINK_DEBUG=1)' },
};

/** Options every command takes. */
const COMMON: readonly OptionName[] = ['help', 'verbose'];

export interface Command {
  /** The words after `wagerlink`, such as `operator players add`. */
  name: string;
  /** Its arguments as the usage shows them: `PLAYER`, `[PLAYER]`, `operator|provider`. */
  args?: string;
  /** The options it takes, in the order the usage lists them. */
  options: readonly OptionName[];
  /** Options it cannot do without: a line without one is a usage error. */
  required?: readonly OptionName[];
  /** One line on what it does. */
  summary: string;
  /** The usage line, where the options' list cannot say it (options that stand for each other). */
  synopsis?: string;
  /** A help text of its own, for commands that tell more than their options. */
  help?: string;
}

export interface Group {
  /** The words after `wagerlink`, such as `operator players`. */
  name: string;
  summary: string;
  /** A help text of its own instead of the list of its commands. */
  help?: string;
  /** Environment variables its commands read, told in its help. */
  environment?: Readonly<Record<string, string>>;
}

export type Node = { kind: 'root' } | ({ kind: 'group' } & Group) | ({ kind: 'command' } & Command);

export class UsageError extends Error {
  override name = 'UsageError';
}

function optionUsage(name: OptionName, required: boolean): string {
  const { arg } = OPTION_TEXT[name];
  const text = arg === undefined ? `--${name}` : `--${name} ${arg}`;
  return required ? text : `[${text}]`;
}

/** A command's usage line. */
function synopsis(command: Command): string {
  if (command.synopsis !== undefined) return `wagerlink ${command.name} ${command.synopsis}`;
  const required = command.required ?? [];
  const parts = [
    `wagerlink ${command.name}`,
    ...(command.args === undefined ? [] : [command.args]),
    ...required.map((name) => optionUsage(name, true)),
    ...command.options.filter((name) => !required.includes(name)).map((name) => optionUsage(name, false)),
  ];
  return parts.join(' ');
}

function optionList(names: readonly OptionName[]): string {
  const rows = names.map((name) => {
    const { arg, text } = OPTION_TEXT[name];
    return [arg === undefined ? `--${name}` : `--${name} ${arg}`, text] as const;
  });
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, text]) => `  ${left.padEnd(width)}${text}`).join('\n');
}

/** Argument counts a command accepts, read from its `args`: bracketed ones may be left out. */
function argumentCounts(command: Command): { min: number; max: number } {
  const words = (command.args ?? '').split(' ').filter((word) => word !== '');
  return { min: words.filter((word) => !word.startsWith('[')).length, max: words.length };
}

function environmentList(variables: Readonly<Record<string, string>>): string {
  return Object.entries(variables)
    .map(([name, text]) => `  ${name.padEnd(34)}${text}`)
    .join('\n');
}

export class CommandTable {
  constructor(
    private readonly commands: readonly Command[],
    private readonly groups: readonly Group[],
    private readonly root: { title: string; environment: Readonly<Record<string, string>>; footer: string },
  ) {}

  /** The deepest command or group the leading words name, and the words left for it. */
  resolve(words: readonly string[]): { node: Node; rest: string[] } {
    for (let length = words.length; length > 0; length--) {
      const name = words.slice(0, length).join(' ');
      const command = this.commands.find((entry) => entry.name === name);
      if (command) return { node: { kind: 'command', ...command }, rest: words.slice(length) };
      const group = this.groups.find((entry) => entry.name === name);
      if (group) return { node: { kind: 'group', ...group }, rest: words.slice(length) };
    }
    return { node: { kind: 'root' }, rest: [...words] };
  }

  private inside(name: string): Command[] {
    return this.commands.filter((command) => command.name.startsWith(`${name} `));
  }

  /** The next words a group takes, for a usage error. */
  private nextWords(name: string): string[] {
    const depth = name === '' ? 0 : name.split(' ').length;
    const words = this.commands.filter((command) => name === '' || command.name.startsWith(`${name} `)).map((command) => command.name.split(' ')[depth]!);
    return [...new Set(words)];
  }

  /** The help of a node: what `--help` prints, and what follows a usage error's line. */
  help(node: Node): string {
    if (node.kind === 'root') {
      const lines = this.commands.map((command) => `  ${synopsis(command)}`);
      return (
        `${this.root.title}\n\nUsage:\n  wagerlink --help | --version\n${lines.join('\n')}\n\n` +
        `Each command takes --help for its own options.\n\nConfiguration (environment):\n${environmentList(this.root.environment)}\n\n${this.root.footer}`
      );
    }
    if (node.help !== undefined) return node.help;
    if (node.kind === 'group') {
      const lines = this.inside(node.name).map((command) => `  ${synopsis(command)}\n      ${command.summary}`);
      const environment = node.environment === undefined ? '' : `\nConfiguration (environment):\n${environmentList(node.environment)}\n`;
      return `wagerlink ${node.name} — ${node.summary}\n\nUsage:\n${lines.join('\n')}\n\nRun "wagerlink ${node.name} COMMAND --help" for a command's options.\n${environment}`;
    }
    const group = this.groups.filter((entry) => node.name.startsWith(`${entry.name} `)).find((entry) => entry.environment !== undefined);
    const environment = group === undefined ? '' : `\nThe environment variables of "wagerlink ${group.name} --help" apply.\n`;
    return `wagerlink ${node.name} — ${node.summary}\n\nUsage:\n  ${synopsis(node)}\n\nOptions:\n${optionList([...node.options, ...COMMON])}\n${environment}`;
  }

  /**
   * What follows a usage error's line: the usage of the node it concerns
   * and where its help is, never the whole help (which `--help` prints). A
   * command's is its one usage line, a group's its commands' lines, the
   * root's its groups.
   */
  usage(node: Node): string {
    if (node.kind === 'command') return `Usage:\n  ${synopsis(node)}\n\nRun "wagerlink ${node.name} --help" for its options.\n`;
    if (node.kind === 'group') {
      const lines = this.inside(node.name).map((command) => `  ${synopsis(command)}`);
      return `Usage:\n${lines.join('\n')}\n\nRun "wagerlink ${node.name} COMMAND --help" for a command's options.\n`;
    }
    return `Usage:\n  wagerlink COMMAND ... [--help]\n\nCommands: ${this.nextWords('').join(', ')}.\nRun "wagerlink --help" for every command, "wagerlink COMMAND --help" for one.\n`;
  }

  /**
   * Reads a command line: which node it names, its arguments and its
   * options. A word no command has, an option the command does not take,
   * an option without its value, or an argument too many or too few is a
   * UsageError; `node` is set in `at` first, so that the error is told with
   * the usage of the command it concerns.
   */
  parse(argv: readonly string[], at: { node: Node }): { node: Node; args: string[]; values: Values } {
    const { values, positionals, tokens } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: false, tokens: true });
    const { node, rest } = this.resolve(positionals);
    at.node = node;
    const allowed = new Set<string>(node.kind === 'command' ? [...node.options, ...COMMON] : [...COMMON, 'version']);
    for (const token of tokens) {
      if (token.kind !== 'option') continue;
      const shown = token.rawName;
      if (!allowed.has(token.name)) {
        throw new UsageError(node.kind === 'root' ? `unknown option ${shown}` : `unknown option ${shown} for "${node.name}"`);
      }
      const spec = OPTIONS[token.name as OptionName];
      if (spec.type === 'string' && token.value === undefined) throw new UsageError(`${shown} needs a value: ${optionUsage(token.name as OptionName, true)}`);
      if (spec.type === 'boolean' && token.value !== undefined) throw new UsageError(`${shown} takes no value`);
    }
    const parsed = values as Values;
    if (parsed.help || parsed.version) return { node, args: rest, values: parsed };
    if (node.kind !== 'command') {
      const prefix = node.kind === 'root' ? '' : node.name;
      if (rest.length === 0)
        throw new UsageError(node.kind === 'root' ? 'a command is needed' : `${prefix} needs a command: ${this.nextWords(prefix).join(', ')}`);
      if (node.kind === 'root') throw new UsageError(`unknown command "${rest[0]}"`);
      throw new UsageError(`${prefix} takes: ${this.nextWords(prefix).join(', ')} (got "${rest[0]}")`);
    }
    const { min, max } = argumentCounts(node);
    if (rest.length < min) throw new UsageError(`${node.name} needs ${node.args}`);
    if (rest.length > max) throw new UsageError(`${node.name} takes ${max === 0 ? 'no arguments' : node.args}; "${rest[max]}" is one too many`);
    for (const name of node.required ?? []) {
      if (parsed[name] === undefined) throw new UsageError(`${node.name} needs ${optionUsage(name, true)}`);
    }
    return { node, args: rest, values: parsed };
  }
}
