/**
 * The dashboard's script (bundled by the admin port with esbuild): polls `GET /cluster` every second with
 * the admin token (kept in sessionStorage) and redraws. It remembers what the fleet no longer says: nodes
 * that left, finished drains, and each lobby's owners as it saw them move.
 */
import type { ClusterNode, ClusterView } from "../cluster-view.ts";
import type { LobbyRow } from "../fleet-view.ts";
import { byId, el, inputById } from "./dom.ts";

type Drain = NonNullable<NonNullable<ClusterNode["status"]>["drain"]>;

const pollMs = 1_000;
const lobbiesShown = 40;
const tokenKey = "foyer-admin-token";

const seen = new Map<string, ClusterNode>();
const drains = new Map<string, Drain>();
const owners = new Map<string, { node: string; epoch: number }[]>();
let selected: string | null = null;
let last: ClusterView | null = null;
let updates = 0;

async function poll(): Promise<void> {
  const token = sessionStorage.getItem(tokenKey);
  try {
    const res = await fetch("/cluster", { headers: token ? { authorization: `Bearer ${token}` } : {} });
    if (res.status === 401) {
      byId("token-form").hidden = false;
      byId("error").textContent = "this admin API needs its token";
      return;
    }
    if (!res.ok) throw new Error(`GET /cluster: HTTP ${res.status}`);
    const view = (await res.json()) as ClusterView;
    byId("error").textContent = "";
    learn(view);
    last = view;
    render(view);
  } catch (error) {
    byId("error").textContent = String(error);
  } finally {
    setTimeout(() => void poll(), pollMs);
  }
}

/** Folds a view into what the page remembers. */
function learn(view: ClusterView): void {
  for (const node of view.nodes) {
    seen.set(node.node, node);
    const drain = node.status?.drain;
    if (drain) drains.set(node.node, drain);
    for (const lobby of node.lobbies ?? []) {
      const history = owners.get(lobby.key) ?? [];
      if (history.at(-1)?.node !== node.node) history.push({ node: node.node, epoch: lobby.epoch });
      owners.set(lobby.key, history);
    }
  }
}

/**
 * What the page calls a node's state: its membership state or draining; once gone (tombstoned, or no
 * longer listed), `drained` when the page saw it drain, else `dead` or `left`.
 */
function stateOf(node: ClusterNode, present: boolean): string {
  const gone = !present || node.state === "dead";
  if (gone && drains.has(node.node)) return "drained";
  if (!present) return "left";
  if (node.state === "live" && (node.draining || node.status?.draining === true)) return "draining";
  return node.state;
}

function lobbyCount(node: ClusterNode): number {
  return node.lobbyCount ?? node.status?.lobbies ?? 0;
}

function render(view: ClusterView): void {
  updates++;
  document.body.dataset.updates = String(updates);
  byId("served-by").textContent = view.servedBy;
  byId("updated").textContent = new Date(view.at).toLocaleTimeString();
  const present = new Set(view.nodes.map((n) => n.node));
  const rows = [...seen.values()].sort((a, b) => a.node.localeCompare(b.node));
  const states = new Map(rows.map((n) => [n.node, stateOf(n, present.has(n.node))]));
  const count = (...wanted: string[]): number =>
    [...states.values()].filter((s) => wanted.includes(s)).length;
  const live = view.nodes.filter((n) => !["dead", "drained"].includes(states.get(n.node) ?? ""));
  byId("nodes-live").textContent = String(count("live"));
  byId("nodes-draining").textContent = String(count("draining"));
  byId("nodes-dead").textContent = String(count("dead", "left", "drained"));
  byId("total-lobbies").textContent = String(live.reduce((sum, n) => sum + lobbyCount(n), 0));
  byId("total-members").textContent = String(live.reduce((sum, n) => sum + (n.status?.members ?? 0), 0));
  byId("failover-count").textContent = String(view.failovers.count);
  byId("nodes").replaceChildren(
    ...rows.map((n) => {
      const state = states.get(n.node) ?? "unknown";
      const gone = state === "left" || state === "dead" || state === "drained";
      return el(
        "tr",
        { "data-node": n.node, "data-state": state },
        el("td", {}, n.node),
        el("td", {}, el("span", { class: `state ${state}` }, state)),
        el("td", { class: "num load" }, gone ? "–" : String(n.load)),
        el("td", { class: "num lobbies" }, gone ? "0" : String(lobbyCount(n))),
        el("td", { class: "num members" }, gone ? "–" : String(n.status?.members ?? "?")),
        el("td", { class: "num sessions" }, gone ? "–" : String(n.status?.sessions ?? "?")),
        el("td", {}, n.version ?? ""),
        el("td", { class: "muted" }, n.error ?? n.url ?? ""),
      );
    }),
  );
  renderDrains();
  byId("failovers").replaceChildren(
    ...(view.failovers.recent.length === 0
      ? [el("li", { class: "muted" }, "none")]
      : view.failovers.recent.map((f) =>
          el(
            "li",
            {},
            `${new Date(f.at).toLocaleTimeString()} ${f.key}: ${f.from ?? "?"} → ${f.by} (epoch ${f.epoch})`,
          ),
        )),
  );
  byId("lobbies").replaceChildren(...view.nodes.map(lobbyList));
  renderDetail();
}

function renderDrains(): void {
  if (drains.size === 0) return;
  byId("drains").replaceChildren(
    ...[...drains].map(([node, d]) =>
      el(
        "div",
        { "data-drain": node, "data-state": d.state },
        el("b", {}, node),
        ` ${d.state}: moved ${d.moved} of ${d.total} keys, ${d.left} left`,
        d.failed > 0 ? `, ${d.failed} failed` : "",
        d.waitingForRoom > 0 ? `, ${d.waitingForRoom} waiting for their room` : "",
        " ",
        el("progress", { max: String(Math.max(d.total, 1)), value: String(d.moved) }),
      ),
    ),
  );
}

function lobbyList(node: ClusterNode): HTMLElement {
  const lobbies = node.lobbies ?? [];
  const items = lobbies.slice(0, lobbiesShown).map((lobby) => {
    const button = el("button", { class: "lobby", "data-key": lobby.key }, lobby.key.split("/").at(-1) ?? "");
    button.addEventListener("click", () => {
      selected = lobby.key;
      renderDetail();
    });
    return el("li", {}, button, el("span", { class: "muted" }, ` ${lobby.members.length} members`));
  });
  const total = lobbyCount(node);
  if (total > items.length) items.push(el("li", { class: "muted" }, `+${total - items.length} more`));
  return el(
    "details",
    { "data-node": node.node, ...(lobbies.length > 0 && lobbies.length <= lobbiesShown ? { open: "" } : {}) },
    el("summary", {}, `${node.node}: ${total}`),
    el("ul", {}, ...items),
  );
}

function findLobby(key: string): { node: string; lobby: LobbyRow } | undefined {
  for (const node of last?.nodes ?? []) {
    const lobby = node.lobbies?.find((l) => l.key === key);
    if (lobby) return { node: node.node, lobby };
  }
  return undefined;
}

function renderDetail(): void {
  if (selected === null) return;
  const found = findLobby(selected);
  const history = owners.get(selected) ?? [];
  const historyLine = el(
    "div",
    { id: "owner-history" },
    "owners seen: ",
    history.map((h) => `${h.node} (epoch ${h.epoch})`).join(" → "),
  );
  if (!found) {
    byId("lobby-detail").replaceChildren(el("b", {}, selected), " is gone (ended, or moving)", historyLine);
    return;
  }
  const { node, lobby } = found;
  byId("lobby-detail").replaceChildren(
    el(
      "div",
      {},
      el("b", {}, lobby.key),
      ` on ${node}, epoch ${lobby.epoch}`,
      lobby.live ? "" : " (passivated)",
    ),
    el("div", {}, `host: ${lobby.host ?? "none"} · room: ${lobby.room ?? "none"}`),
    el(
      "table",
      {},
      el(
        "tr",
        {},
        el("th", {}, "player"),
        el("th", {}, "name"),
        el("th", {}, "ready"),
        el("th", {}, "connected"),
      ),
      ...lobby.members.map((m) =>
        el(
          "tr",
          {},
          el("td", {}, m.player),
          el("td", {}, m.name),
          el("td", {}, m.ready ? "yes" : "no"),
          el("td", {}, m.connected ? "yes" : "no"),
        ),
      ),
    ),
    historyLine,
  );
}

byId("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(tokenKey, inputById("token").value);
  byId("token-form").hidden = true;
});

void poll();
