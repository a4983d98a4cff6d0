import { pushTo, refuse, reply, type Transition } from "../runtime/index.ts";
import type { LobbyMessageOf } from "./lobby-messages.ts";
import type { LobbyState, Member } from "./lobby-state.ts";
import { findMember } from "./lobby-state.ts";
import { updateMember } from "./members.ts";
import type { LobbyEnv } from "./lobby-env.ts";

/**
 * Lobby chat, with the relay room's rules: channel `all` reaches every member, `team` the members of the
 * sender's team (of the last room started). Lines are pushed, never kept: a member who was away does not
 * get them later. Each is a stamped push of the lobby, so it is in order with the lobby's other frames,
 * and a client drops one that an older owner sends after a move (its epoch is older). A member sends at
 * most `chatBurst` lines within `chatWindowSeconds`; only the times are kept, and written lazily (the
 * change is volatile): a line is acknowledged by being relayed, not by a write.
 */

type Step = Transition<LobbyState>;

function recipients(state: LobbyState, sender: Member, channel: "all" | "team"): string[] {
  const members = channel === "all" ? state.members : state.members.filter((m) => m.team === sender.team);
  return members.map((m) => m.player);
}

/** The sender's recent line times within the window, or the wait until it may send again. */
function rateCheck(member: Member, env: LobbyEnv): { recent: number[] } | { waitMs: number } {
  const windowMs = env.options.chatWindowSeconds * 1000;
  const now = env.ctx.now;
  const recent = member.chatAt.filter((at) => at > now - windowMs);
  if (recent.length < env.options.chatBurst) return { recent };
  const oldest = Math.min(...recent);
  return { waitMs: Math.max(1, oldest + windowMs - now) };
}

/** A member's chat line goes to its channel's members (the sender included), in the lobby's order. */
export function chat(state: LobbyState, message: LobbyMessageOf<"chat">, env: LobbyEnv): Step {
  const sender = findMember(state, message.player);
  if (sender === undefined) {
    return refuse(state, "NOT_IN_LOBBY", `${message.player} is not in lobby ${state.code}`);
  }
  if (message.text.length > env.options.chatMaxLength) {
    return refuse(state, "INVALID", `a chat line is at most ${env.options.chatMaxLength} characters`);
  }
  if (message.channel === "team" && sender.team === null) {
    return refuse(state, "INVALID", "no team yet: teams are made when the host starts a room");
  }
  const rate = rateCheck(sender, env);
  if ("waitMs" in rate) {
    const limit = `${env.options.chatBurst} lines per ${env.options.chatWindowSeconds} s`;
    return refuse(state, "RATE_LIMITED", `lobby chat takes at most ${limit}`, rate.waitMs);
  }
  const next = updateMember(state, sender.player, { chatAt: [...rate.recent, env.ctx.now] });
  const frame = {
    type: "lobbyChat",
    code: state.code,
    channel: message.channel,
    player: sender.player,
    name: sender.name,
    text: message.text,
  };
  return {
    state: next,
    effects: [...pushTo(recipients(state, sender, message.channel), frame), reply()],
    volatile: true,
  };
}
