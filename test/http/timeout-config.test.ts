/**
 * Proves that both servers read the two time-outs of docs/protocol.md §9 like
 * their other limits: the operator from WAGERLINK_REQUEST_TIMEOUT_MS and
 * WAGERLINK_SHUTDOWN_TIMEOUT_MS, the provider from limits.requestTimeoutMs
 * and limits.shutdownTimeoutMs; both default to 10 s, and a value that is
 * not a positive whole number, or is beyond what Node's timers hold, is
 * refused naming the setting.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REQUEST_TIMEOUT_MS, SHUTDOWN_TIMEOUT_MS } from '../../src/http/limits.js';
import { CONFIG_VARIABLES } from '../../src/operator/config-variables.js';
import { ConfigError, HTTP_TIMEOUT_MS_MAX, readOperatorConfig } from '../../src/operator/operator-config.js';
import { ProviderConfigError } from '../../src/provider/config-values.js';
import { resolveProviderConfig } from '../../src/provider/provider-config.js';
import { exampleConfigFile } from '../provider/provider-helpers.js';

test('the defaults are docs/protocol.md §9’s 10 s', () => {
  assert.equal(REQUEST_TIMEOUT_MS, 10_000);
  assert.equal(SHUTDOWN_TIMEOUT_MS, 10_000);
  const operator = readOperatorConfig({});
  assert.equal(operator.requestTimeoutMs, REQUEST_TIMEOUT_MS);
  assert.equal(operator.shutdownTimeoutMs, SHUTDOWN_TIMEOUT_MS);
  const provider = resolveProviderConfig(exampleConfigFile());
  assert.equal(provider.limits.requestTimeoutMs, REQUEST_TIMEOUT_MS);
  assert.equal(provider.limits.shutdownTimeoutMs, SHUTDOWN_TIMEOUT_MS);
});

test('the operator reads them from the environment, and says what it refuses', () => {
  const set = readOperatorConfig({ WAGERLINK_REQUEST_TIMEOUT_MS: '2500', WAGERLINK_SHUTDOWN_TIMEOUT_MS: '30000' });
  assert.equal(set.requestTimeoutMs, 2_500);
  assert.equal(set.shutdownTimeoutMs, 30_000);
  for (const name of ['WAGERLINK_REQUEST_TIMEOUT_MS', 'WAGERLINK_SHUTDOWN_TIMEOUT_MS'] as const) {
    assert.ok(name in CONFIG_VARIABLES, `${name} is listed in the usage text`);
    for (const value of ['0', '-1', '1.5', 'ten', String(HTTP_TIMEOUT_MS_MAX + 1), String(2 ** 31)]) {
      assert.throws(
        () => readOperatorConfig({ [name]: value }),
        (error: unknown) => error instanceof ConfigError && error.message.includes(name),
        `${name}=${value}`,
      );
    }
  }
});

test('the provider reads them from limits, and says what it refuses', () => {
  const file = exampleConfigFile();
  file.limits = { requestTimeoutMs: 2_500, shutdownTimeoutMs: 30_000 };
  const config = resolveProviderConfig(file);
  assert.equal(config.limits.requestTimeoutMs, 2_500);
  assert.equal(config.limits.shutdownTimeoutMs, 30_000);
  for (const member of ['requestTimeoutMs', 'shutdownTimeoutMs']) {
    for (const value of [0, 1.5, 'ten', HTTP_TIMEOUT_MS_MAX + 1]) {
      const bad = exampleConfigFile();
      bad.limits = { [member]: value };
      assert.throws(
        () => resolveProviderConfig(bad),
        (error: unknown) => error instanceof ProviderConfigError && error.message.includes(member),
        `${member}=${value}`,
      );
    }
  }
});
