/**
 * A node's admin side: the admin HTTP API (`/metrics`, `/status`, `/drain`), its Prometheus metrics and
 * `foyer status`. The node and the CLI import it only through this file.
 */
export { AdminServer, type AdminDeps, type AdminServerOptions } from "./admin-server.ts";
export type { DrainAnswer, DrainHook } from "./drain-hook.ts";
export { NodeMetrics, type NodeCounts } from "./node-metrics.ts";
export {
  ServerApi,
  createLobbyBodySchema,
  defaultReserveSeconds,
  endRoomBodySchema,
  kickBodySchema,
  type ApiAnswer,
  type ServerApiDeps,
} from "./server-api.ts";
export { nodeStatusSchema, type NodeStatus } from "./node-status.ts";
export { httpUrlOf, startAdmin, type AdminParts, type RunningAdmin } from "./start-admin.ts";
export { foyerVersion } from "./version.ts";
export {
  fleetViewOf,
  fleetViewSchema,
  type FleetSource,
  type FleetView,
  type LobbyRow,
  type PeerRow,
} from "./dashboard/fleet-view.ts";
export { clusterViewOf, type ClusterNode, type ClusterView } from "./dashboard/cluster-view.ts";
export {
  clusterStatusOf,
  fetchStatuses,
  formatUptime,
  runStatus,
  statusTable,
  type ClusterStatus,
  type StatusOptions,
  type StatusRow,
} from "./status-command.ts";
export { drainUntilAccepted, runDrain } from "./drain-command.ts";
export type { DrainCommandOptions, DrainSummary } from "./drain-command.ts";
