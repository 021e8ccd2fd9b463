/**
 * `wagerlink conformance operator`: the operator's conformance cases run
 * against an endpoint, reported on the terminal and in the files asked for.
 * main.ts imports this module when the command runs.
 */
import { loadFixturesFile, type FixturesSetting } from '../conformance/fixtures.js';
import { runOperatorConformance } from '../conformance/operator-runner.js';
import { runFailed } from '../conformance/report.js';
import { reportFormat, writeReports } from '../conformance/reporters/files.js';
import { terminalReporter, wantsColour } from '../conformance/reporters/terminal.js';
import { UsageError, type Values } from './command-table.js';
import { SECRETS } from './options.js';
import { secretFrom } from './secret-input.js';

/** Runs the operator's conformance cases; the exit code says whether any failed, or the check before them (1), or all that ran passed (0). */
export async function conformance(command: string | undefined, values: Values): Promise<void> {
  if (command !== 'operator') throw new UsageError('conformance takes: operator, provider');
  const endpoint = values.endpoint;
  if (!endpoint) throw new UsageError('conformance operator needs --endpoint URL');
  if (!/^https?:\/\/[^/]/i.test(endpoint) || !URL.canParse(endpoint)) throw new UsageError(`--endpoint must be an http(s) URL, got "${endpoint}"`);
  const secret = secretFrom({ value: values.secret, file: values['secret-file'] }, { option: 'secret', variable: 'WAGERLINK_CONFORMANCE_SECRET' }, SECRETS);
  if (!secret)
    throw new UsageError('conformance operator needs --secret-file FILE, WAGERLINK_CONFORMANCE_SECRET or --secret (the shared secret that signs requests)');
  const token = secretFrom({ value: values.token, file: values['token-file'] }, { option: 'token', variable: 'WAGERLINK_CONFORMANCE_TOKEN' }, SECRETS);
  if (!token)
    throw new UsageError('conformance operator needs --token-file FILE, WAGERLINK_CONFORMANCE_TOKEN or --token (an access token the operator accepts)');
  const adminToken = secretFrom(
    { value: values['admin-token'], file: values['admin-token-file'] },
    { option: 'admin-token', variable: 'WAGERLINK_CONFORMANCE_ADMIN_TOKEN' },
    SECRETS,
  );
  if (values.fixtures === undefined && adminToken === undefined)
    throw new UsageError(
      'conformance operator needs --fixtures FILE or the admin token (--admin-token-file FILE, WAGERLINK_CONFORMANCE_ADMIN_TOKEN or --admin-token)',
    );
  const reports = values.report ?? [];
  for (const path of reports) if (reportFormat(path) === undefined) throw new UsageError(`--report ${path}: a report file ends in .json, .xml or .html`);
  const only = (values.only ?? [])
    .flatMap((entry) => entry.split(','))
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  const fixtures: FixturesSetting = {
    ...(values.fixtures === undefined ? {} : { file: { content: await loadFixturesFile(values.fixtures), origin: values.fixtures } }),
    ...(adminToken === undefined ? {} : { adminToken }),
  };
  const report = await runOperatorConformance({
    target: { endpoint, secret, accessToken: token },
    fixtures,
    only,
    bail: values.bail === true,
    onEvent: terminalReporter(process.stdout, wantsColour(process.stdout)),
  });
  await writeReports(report, reports, process.stdout);
  process.exitCode = runFailed(report) ? 1 : 0;
}
