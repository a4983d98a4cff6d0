import type { FoyerClient } from "../../gateway/index.ts";
import type { LobbyView } from "../../gateway/protocol/server-frames.ts";

/** One member of a failover bench lobby, and when it was back after the kill. */
export interface Member {
  readonly player: string;
  readonly client: FoyerClient;
  /** When it was welcomed again after the kill (performance.now()), if it was. */
  connectedAgainAt?: number;
  /** The node of its latest welcome. */
  node?: string;
  resumedAt?: number;
  /** `redirect` frames it received from the kill until it was back. */
  redirects: number;
}

/** One lobby of the failover bench: the state its members must find again, and when it was served. */
export interface Lobby {
  readonly code: string;
  readonly members: Member[];
  readonly host: string;
  readonly ready: readonly boolean[];
  /** The epoch of the killed node's claim. */
  epoch: number;
  servedAt?: number;
  servedBy?: string;
}

/**
 * One lobby: its members connect (to n1 first), the host creates it, the others join; even lobbies get
 * the host's ready flag and odd ones the last member's, so the state to find again is not the default.
 */
export async function makeLobby(
  connect: (player: string) => Promise<FoyerClient>,
  i: number,
  count: number,
): Promise<Lobby> {
  const players = Array.from({ length: count }, (_, m) => (m === 0 ? `fo-host-${i}` : `fo-m${m}-${i}`));
  const members: Member[] = [];
  for (const player of players) members.push({ player, client: await connect(player), redirects: 0 });
  const [host] = members;
  if (host === undefined) throw new RangeError("a lobby needs a member");
  const { code } = await host.client.create();
  for (const member of members.slice(1)) await member.client.join(code);
  const readyIndex = i % 2 === 0 ? 0 : count - 1;
  await (members[readyIndex] ?? host).client.ready(true);
  const ready = players.map((_, m) => m === readyIndex);
  const lobby: Lobby = { code, members, host: host.player, ready, epoch: 0 };
  // Every member holds the final state before the kill (the ready push reaches them after the answer).
  for (const member of members) {
    await until(() => {
      const view = member.client.lobby;
      return view !== null && view.code === code && sameState(view, lobby);
    }, 30_000);
  }
  lobby.epoch = host.client.lobby?.epoch ?? 0;
  return lobby;
}

/** Same code, members in order, host and ready flags. */
function sameState(view: LobbyView, lobby: Lobby): boolean {
  return (
    view.code === lobby.code &&
    view.host === lobby.host &&
    view.members.length === lobby.members.length &&
    view.members.every((m, i) => m.player === lobby.members[i]?.player && m.ready === lobby.ready[i])
  );
}

/** A member holds the survivor's state: a newer epoch, the same lobby, itself connected. */
export function holds(view: LobbyView, lobby: Lobby, player: string): boolean {
  return (
    view.epoch > lobby.epoch &&
    sameState(view, lobby) &&
    view.members.some((m) => m.player === player && m.connected)
  );
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
