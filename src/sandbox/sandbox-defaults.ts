/**
 * The sandbox's defaults that its usage text shows: kept apart from
 * sandbox-config.ts, which reads the provider's config and its schemas, so
 * that `wagerlink --help` and every other command's usage load none of them.
 */
export const OPERATOR_PORT_DEFAULT = 8080;
export const PROVIDER_PORT_DEFAULT = 8090;

/** The schema of the provider's tables when the sandbox runs on PostgreSQL. */
export const PROVIDER_SCHEMA_DEFAULT = 'wagerlink_provider';
