import { roomKey } from "../../actors/common/index.ts";
import type { Entry } from "../../actors/player/index.ts";
import type { ActorSystem, AskResult } from "../../actors/runtime/index.ts";
import type { Session } from "../sessions/index.ts";
import { askEntry, reportEntry, type EntryReport } from "./entry-rule.ts";
import { refused } from "./refused.ts";

/**
 * A party on the wire: the host of a private lobby queues the lobby's members with it as one party
 * (`findLobby { party: true }`). The members are read from the lobby itself, never from the client; each
 * one's registry is asked the same entry (the rule refuses a member seated in a room or held by another
 * party's search), and only when every one allowed it is the party queued. The lobby stays; its members
 * are held (`SEARCHING`) until the search ends, which the queue tells each of their registries.
 */

/** A member as the lobby's `view` shows it. */
interface LobbyMember {
  readonly player: string;
  readonly name: string;
  readonly inRoom: boolean;
}

/** The part of the lobby's `view` a party search reads. */
interface LobbyView {
  readonly host: string;
  readonly members: readonly LobbyMember[];
  readonly room: { readonly code: string } | null;
}

/** What a party search needs from the matchmaking requests. */
export interface PartySearchDeps {
  readonly system: ActorSystem;
  /** Sends the search to the queue, with the party, and answers as the queue did. */
  readonly enqueue: (party: { id: string; name: string }[]) => Promise<AskResult>;
  /** What the registries are told of a made search. */
  readonly reportOf: (value: unknown) => EntryReport;
}

/** The room a member is seated in, as its lobby sees it. */
function seatedIn(member: LobbyMember, view: LobbyView): string | null {
  return member.inRoom && view.room !== null ? roomKey(view.room.code) : null;
}

/** Reads the session's private lobby; a refusal when the player is in none, or is not its host. */
async function hostedLobby(system: ActorSystem, session: Session): Promise<LobbyView | AskResult> {
  const lobby = session.lobby;
  if (lobby === null) return refused("NOT_IN_LOBBY", "a party is queued from the private lobby you host");
  const seen = await system.ask(lobby, { type: "view" });
  if (!seen.ok) {
    return seen.code === "NOT_FOUND" ? refused("NOT_IN_LOBBY", `${lobby} is gone`) : seen;
  }
  const view = seen.value as LobbyView;
  if (view.host !== session.player) return refused("NOT_HOST", "only the lobby's host queues it as a party");
  return view;
}

/**
 * Asks every member's registry about the party's entry, the host first. The first refusal is the
 * answer (naming the member it is about), and the registries that allowed it are told it failed.
 */
async function allowedForAll(
  system: ActorSystem,
  members: readonly LobbyMember[],
  entry: Entry,
  seated: (m: LobbyMember) => string | null,
  host: string,
): Promise<AskResult | undefined> {
  const allowed: string[] = [];
  for (const member of members) {
    const answer = await askEntry(system, member.player, entry, seated(member));
    if (!answer.ok) {
      for (const id of allowed) reportEntry(system, id, entry, answer.refusal);
      const refusal = answer.refusal;
      if (refusal.ok || member.player === host) return refusal;
      return { ...refusal, message: `${member.player}: ${refusal.message}` };
    }
    allowed.push(member.player);
  }
  return undefined;
}

/** Queues the session's private lobby as one party, through every member's rule. Never throws. */
export async function partySearch(
  deps: PartySearchDeps,
  session: Session,
  queue: string,
): Promise<AskResult> {
  const view = await hostedLobby(deps.system, session);
  if ("ok" in view) return view;
  const lobby = session.lobby ?? "";
  const entry: Entry = { kind: "partySearch", queue, lobby, host: session.player };
  const host = view.members.find((m) => m.player === session.player);
  const others = view.members.filter((m) => m.player !== session.player);
  const members = host === undefined ? others : [host, ...others];
  const seated = (m: LobbyMember): string | null =>
    m.player === session.player ? (session.room ?? seatedIn(m, view)) : seatedIn(m, view);
  const refusal = await allowedForAll(deps.system, members, entry, seated, session.player);
  if (refusal !== undefined) return refusal;
  const result = await deps.enqueue(others.map((m) => ({ id: m.player, name: m.name })));
  const report = result.ok ? deps.reportOf(result.value) : {};
  for (const m of members) reportEntry(deps.system, m.player, entry, result, report);
  return result;
}
