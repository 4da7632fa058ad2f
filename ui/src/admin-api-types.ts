/**
 * The admin API's bodies as the gateway declares them (src/admin/admin-api-types.ts): type-only,
 * so nothing of the gateway is bundled, and the dashboard cannot drift from what it is sent.
 */
export type * from '../../src/admin/admin-api-types.js';
