/**
 * The operators of the provider's config: each one's wallets, secrets,
 * IP whitelist and trusted proxies, endpoint, page origins and currencies,
 * read for meaning; no operator id twice, and no wallet id under two
 * operators.
 */
import type { Currencies } from '../protocol/money.js';
import type { ProviderConfigFile } from './config-schema.js';
import { fail, httpUrl, knownCurrency, pageOrigin, unique } from './config-values.js';
import { parseRange } from '../access/address-ranges.js';

export interface OperatorSettings {
  operatorId: string;
  walletIds: string[];
  /** The current secret, then the next one during a rotation. */
  secrets: string[];
  ipWhitelist: string[];
  trustedProxies: string[];
  /** Base URL without a trailing slash. */
  endpoint: string;
  /** Origins of the operator's pages: they may frame the game page, which may call them (urls.refresh). */
  pageOrigins: string[];
  accessToken: string;
  currencies: string[];
}

type OperatorFile = ProviderConfigFile['operators'][number];

/** The config's `operators`, each read for meaning, then checked against each other. */
export function operatorsOf(operatorsIn: readonly OperatorFile[], currencies: Currencies): OperatorSettings[] {
  const operators = operatorsIn.map((op, i) => operatorOf(`operators[${i}]`, op, currencies));
  unique(
    'operators',
    operators.map((op) => op.operatorId),
    'operatorId',
  );
  // A walletId names one operator integration: the same id under two operators would be ambiguous.
  const walletOwners = new Map<string, string>();
  operators.forEach((op, i) =>
    op.walletIds.forEach((walletId, j) => {
      const owner = walletOwners.get(walletId);
      if (owner !== undefined) fail(`operators[${i}].walletIds[${j}]`, `${walletId} is already a wallet of operator ${owner}`);
      walletOwners.set(walletId, op.operatorId);
    }),
  );
  return operators;
}

function operatorOf(member: string, op: OperatorFile, currencies: Currencies): OperatorSettings {
  op.ipWhitelist.forEach((entry, j) => {
    if (!parseRange(entry)) fail(`${member}.ipWhitelist[${j}]`, `${entry} is not an IP address or CIDR range`);
  });
  (op.trustedProxies ?? []).forEach((entry, j) => {
    if (!parseRange(entry)) fail(`${member}.trustedProxies[${j}]`, `${entry} is not an IP address or CIDR range`);
  });
  op.currencies.forEach((code, j) => knownCurrency(`${member}.currencies[${j}]`, code, currencies));
  unique(`${member}.currencies`, op.currencies, 'currency');
  return {
    operatorId: op.operatorId,
    walletIds: [...op.walletIds],
    secrets: op.secretNext === undefined ? [op.secret] : [op.secret, op.secretNext],
    ipWhitelist: [...op.ipWhitelist],
    trustedProxies: [...(op.trustedProxies ?? [])],
    endpoint: httpUrl(`${member}.endpoint`, op.endpoint),
    pageOrigins: (op.pageOrigins ?? []).map((text, j) => pageOrigin(`${member}.pageOrigins[${j}]`, text)),
    accessToken: op.accessToken,
    currencies: [...op.currencies],
  };
}

/** A warning for each operator without page origins: valid, but its pages can neither frame the game nor be called by it. */
export function pageOriginWarnings(operators: readonly OperatorSettings[]): string[] {
  return operators
    .filter((op) => op.pageOrigins.length === 0)
    .map((op) => `operators[${op.operatorId}].pageOrigins is empty: no page of this operator may frame the game page, and its urls.refresh is not called`);
}
