import type { PlayerRef } from "../common/index.ts";
import type { LobbyState, Member } from "./lobby-state.ts";

/** The member list: join order is the order of the array, and every change makes a new one. */

/**
 * A new member's data and chat times, shared by every member until it has some of its own: a member is
 * never changed in place (each change makes a new one), and an empty object and array of their own
 * cost each seated player 88 bytes.
 */
const noMemberData: Member["data"] = Object.freeze({});
const noChatYet: Member["chatAt"] = Object.freeze([]) as unknown as Member["chatAt"];

/** The state with one member changed; the same state when the player is not a member. */
export function updateMember(state: LobbyState, player: string, patch: Partial<Member>): LobbyState {
  if (!state.members.some((m) => m.player === player)) return state;
  return { ...state, members: state.members.map((m) => (m.player === player ? { ...m, ...patch } : m)) };
}

/** The state with a new member at the end of the join order, with the next member id. */
export function addMember(state: LobbyState, player: PlayerRef): LobbyState {
  const member: Member = {
    player: player.id,
    memberId: state.nextMemberId,
    name: player.name,
    ready: false,
    team: null,
    connected: true,
    inRoom: false,
    data: noMemberData,
    chatAt: noChatYet,
  };
  return { ...state, members: [...state.members, member], nextMemberId: state.nextMemberId + 1 };
}

/**
 * Who takes over from a host who left: the first connected member in join order, so the role goes to
 * someone who can use it; if nobody is connected, the first member (the lobby waits for the graces).
 */
export function nextHost(remaining: readonly Member[]): string | null {
  return (remaining.find((m) => m.connected) ?? remaining[0])?.player ?? null;
}
