/**
 * `wagerlink conformance provider`: runs the provider's conformance cases
 * against a provider endpoint (docs/conformance.md) with the same output
 * and reports as the operator side. Its options are its own, parsed here,
 * and so are its usage errors: main.ts hands it the arguments after
 * `conformance provider` and nothing else.
 */
import { parseArgs } from 'node:util';
import { reportFormat } from '../conformance/reporters/files.js';
import { processSources, secretFrom } from './secret-input.js';
import { CONFORMANCE_PROVIDER_USAGE } from './conformance-provider-usage.js';

class UsageError extends Error {
  override name = 'UsageError';
}

const list = (entries: readonly string[] | undefined) =>
  (entries ?? [])
    .flatMap((entry) => entry.split(','))
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);

/**
 * Runs the command; sets the exit code and writes its own errors: a usage
 * error is one line and `usage` (the command table's usage of this command),
 * a run that could not start one line, both as every command tells them.
 */
export async function conformanceProvider(argv: readonly string[], usage: string): Promise<void> {
  try {
    await run(argv);
  } catch (error) {
    const err = error as Error & { code?: string };
    if (
      error instanceof UsageError ||
      err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ||
      err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' ||
      err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL'
    ) {
      process.stderr.write(`wagerlink: ${err.message}\n\n${usage}`);
      process.exitCode = 2;
    } else if (err.name === 'RunNotStarted') {
      process.stderr.write(`wagerlink: ${err.message}\n`);
      process.exitCode = 2;
    } else {
      throw error;
    }
  }
}

// eslint-disable-next-line max-lines-per-function -- the command's options checked in the order its usage lists them, then its one call
async function run(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      endpoint: { type: 'string' },
      secret: { type: 'string' },
      'secret-file': { type: 'string' },
      'next-secret': { type: 'string' },
      'next-secret-file': { type: 'string' },
      'outside-whitelist': { type: 'boolean' },
      'operator-id': { type: 'string' },
      'wallet-id': { type: 'string' },
      game: { type: 'string' },
      currency: { type: 'string', multiple: true },
      report: { type: 'string', multiple: true },
      only: { type: 'string', multiple: true },
      bail: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(CONFORMANCE_PROVIDER_USAGE);
    return;
  }
  const endpoint = values.endpoint;
  if (!endpoint) throw new UsageError('conformance provider needs --endpoint URL');
  if (!/^https?:\/\/[^/]/i.test(endpoint) || !URL.canParse(endpoint)) throw new UsageError(`--endpoint must be an http(s) URL, got "${endpoint}"`);
  const sources = processSources((message) => new UsageError(message));
  const secret = secretFrom({ value: values.secret, file: values['secret-file'] }, { option: 'secret', variable: 'WAGERLINK_CONFORMANCE_SECRET' }, sources);
  if (!secret)
    throw new UsageError("conformance provider needs --secret-file FILE, WAGERLINK_CONFORMANCE_SECRET or --secret (the operator's secret that signs requests)");
  const nextSecret = secretFrom(
    { value: values['next-secret'], file: values['next-secret-file'] },
    { option: 'next-secret', variable: 'WAGERLINK_CONFORMANCE_NEXT_SECRET' },
    sources,
  );
  for (const [name, text] of [
    ['operator-id', "the operator's id at the provider"],
    ['wallet-id', 'a wallet id the provider issued to the operator'],
    ['game', 'a game the provider offers'],
  ] as const) {
    if (!values[name]) throw new UsageError(`conformance provider needs --${name} (${text})`);
  }
  const reports = values.report ?? [];
  for (const path of reports) if (reportFormat(path) === undefined) throw new UsageError(`--report ${path}: a report file ends in .json, .xml or .html`);
  const currencies = list(values.currency);
  // The kit and its reporters are imported once the options are good: a usage error or --help loads neither.
  const [{ runProviderConformance }, { writeReports }, { terminalReporter, wantsColour }, { runFailed }] = await Promise.all([
    import('../conformance/provider-runner.js'),
    import('../conformance/reporters/files.js'),
    import('../conformance/reporters/terminal.js'),
    import('../conformance/report.js'),
  ]);
  const report = await runProviderConformance({
    target: {
      endpoint,
      secret,
      ...(nextSecret === undefined ? {} : { nextSecret }),
      ...(values['outside-whitelist'] === true ? { outsideWhitelist: true } : {}),
      operatorId: values['operator-id']!,
      walletId: values['wallet-id']!,
      game: values.game!,
      ...(currencies.length === 0 ? {} : { currencies }),
    },
    only: list(values.only),
    bail: values.bail === true,
    onEvent: terminalReporter(process.stdout, wantsColour(process.stdout)),
  });
  await writeReports(report, reports, process.stdout);
  process.exitCode = runFailed(report) ? 1 : 0;
}
