/**
 * A deployment as `GET /admin/health` gives it: the gateway's own types (type-only, so nothing of
 * the gateway is bundled).
 */
export type { AdminHealthResponse, DeploymentHealthView } from '../../src/admin/deployment-health-view.js';
