import { nodeStatusSchema, type NodeStatus } from "./node-status.ts";

/** One node's answer to `foyer status`: its status, or why it gave none. */
export type StatusRow =
  | { readonly admin: string; readonly status: NodeStatus }
  | { readonly admin: string; readonly error: string };

/** How `foyer status` asks. */
export interface StatusOptions {
  /** Bearer token of admin APIs that need one (`--admin-token`, FOYER_ADMIN_TOKEN). */
  readonly token?: string;
  /** How long one node may take to answer (default 3 s). */
  readonly timeoutMs?: number;
}

/** What `foyer status --json` prints: every node and the totals of those that answered. */
export interface ClusterStatus {
  readonly nodes: readonly (
    ({ readonly admin: string } & NodeStatus) | { readonly admin: string; readonly error: string }
  )[];
  readonly totals: { readonly lobbies: number; readonly members: number; readonly sessions: number };
}

/**
 * Asks each admin URL for `GET /status`, all at once. A node that does not answer, answers an error or
 * something that is not a status is a row with the reason, never a throw: the table is most needed when
 * some nodes are down. (Fleet-wide discovery, from the `nodes` bucket, hands its URLs to this.)
 */
export async function fetchStatuses(
  adminUrls: readonly string[],
  options: StatusOptions = {},
): Promise<StatusRow[]> {
  return Promise.all(adminUrls.map((admin) => fetchStatus(admin, options)));
}

async function fetchStatus(admin: string, options: StatusOptions): Promise<StatusRow> {
  try {
    const response = await fetch(new URL("/status", admin), {
      headers: options.token === undefined ? {} : { authorization: `Bearer ${options.token}` },
      signal: AbortSignal.timeout(options.timeoutMs ?? 3_000),
    });
    if (!response.ok) return { admin, error: `HTTP ${response.status}` };
    const parsed = nodeStatusSchema.safeParse(await response.json());
    if (!parsed.success) return { admin, error: "not a Foyer status" };
    return { admin, status: parsed.data };
  } catch (error) {
    return { admin, error: (error as Error).message };
  }
}

/** The rows as one JSON-able object, with the totals of the nodes that answered. */
export function clusterStatusOf(rows: readonly StatusRow[]): ClusterStatus {
  const totals = { lobbies: 0, members: 0, sessions: 0 };
  for (const row of rows) {
    if (!("status" in row)) continue;
    totals.lobbies += row.status.lobbies;
    totals.members += row.status.members;
    totals.sessions += row.status.sessions;
  }
  return {
    nodes: rows.map((row) => ("status" in row ? { admin: row.admin, ...row.status } : row)),
    totals,
  };
}

/** `3725` → `1h02m`: long enough to tell a fresh node from an old one at a glance. */
export function formatUptime(seconds: number): string {
  const s = Math.floor(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  const minutes = String(Math.floor((s % 3600) / 60)).padStart(2, "0");
  if (s < 86_400) return `${Math.floor(s / 3600)}h${minutes}m`;
  return `${Math.floor(s / 86_400)}d${String(Math.floor((s % 86_400) / 3600)).padStart(2, "0")}h`;
}

const columns = ["node", "mode", "lobbies", "members", "sessions", "state", "version", "uptime"] as const;

/** The rows as an aligned text table; a node that did not answer shows its admin URL and the reason. */
export function statusTable(rows: readonly StatusRow[]): string {
  const cells = rows.map((row): string[] => {
    if (!("status" in row)) return [row.admin, "-", "-", "-", "-", `unreachable: ${row.error}`, "-", "-"];
    const s = row.status;
    return [
      s.nodeId,
      s.mode,
      String(s.lobbies),
      String(s.members),
      String(s.sessions),
      s.draining ? "draining" : "live",
      s.version,
      formatUptime(s.uptimeSeconds),
    ];
  });
  const table = [[...columns], ...cells];
  const widths = columns.map((_, i) => Math.max(...table.map((line) => (line[i] ?? "").length)));
  return table
    .map((line) =>
      line
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/**
 * `foyer status`: prints the table (or, with `json`, one JSON object) of the nodes behind `adminUrls`.
 * Resolves with the exit code: 0 when every node answered, 1 otherwise.
 */
export async function runStatus(
  adminUrls: readonly string[],
  options: StatusOptions & { readonly json: boolean },
  write: (text: string) => void,
): Promise<number> {
  const rows = await fetchStatuses(adminUrls, options);
  write(`${options.json ? JSON.stringify(clusterStatusOf(rows)) : statusTable(rows)}\n`);
  return rows.every((row) => "status" in row) ? 0 : 1;
}
