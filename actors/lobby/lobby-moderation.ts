import { pushTo, refuse, reply, withEffects, type Transition } from "../runtime/index.ts";
import { playerKey } from "../common/index.ts";
import { departAndPush } from "./departures.ts";
import { pushStateTo } from "./lobby-frames.ts";
import type { LobbyMessageOf } from "./lobby-messages.ts";
import type { LobbyState } from "./lobby-state.ts";
import { findMember } from "./lobby-state.ts";
import { hostRefusal } from "./host-check.ts";
import type { LobbyEnv } from "./lobby-env.ts";

/** Taking a member out: by the host, or by the studio's backend; optionally for the lobby's life. */

type Step = Transition<LobbyState>;

/** Why this kick may not happen, or undefined. */
function kickRefusal(state: LobbyState, message: LobbyMessageOf<"kick">, env: LobbyEnv): Step | undefined {
  const notAllowed = hostRefusal(state, message.player);
  if (notAllowed) return notAllowed;
  const { target } = message;
  if (target === message.player)
    return refuse(state, "INVALID", "the host cannot kick itself; leave instead");
  if (findMember(state, target) === undefined) {
    return refuse(state, "NOT_IN_LOBBY", `${target} is not in lobby ${state.code}`);
  }
  if (message.ban === true && !state.banned.includes(target) && state.banned.length >= env.options.maxBans) {
    return refuse(
      state,
      "DATA_LIMIT",
      `lobby ${state.code} has banned ${env.options.maxBans} players already`,
    );
  }
  return undefined;
}

/**
 * The host (`player`) or the studio's backend takes a member out, banned from coming back if asked. The
 * kicked player hears why (`kicked`), then the lobby without it, so its client shows it left; the
 * others hear the new state. A player who is not a member is NOT_IN_LOBBY, nothing changed.
 */
export function kick(state: LobbyState, message: LobbyMessageOf<"kick">, env: LobbyEnv): Step {
  const refused = kickRefusal(state, message, env);
  if (refused) return refused;
  const { target } = message;
  const banned = message.ban === true;
  const marked: LobbyState =
    banned && !state.banned.includes(target) ? { ...state, banned: [...state.banned, target] } : state;
  const told = { type: "kicked", code: state.code, reason: message.reason ?? null, banned };
  const step = asKick(departAndPush(marked, target, "leave", env), target);
  return withEffects(step, ...pushTo([target], told), pushStateTo(step.state, target), reply());
}

/**
 * The kicked player's registry hears it was kicked, not that it left: a kick takes it out of everything
 * the lobby's party took it to (the party's search, and the matched lobby the party was placed in).
 */
function asKick(step: Step, target: string): Step {
  const effects = step.effects.map((e) =>
    e.type === "tell" && e.to === playerKey(target) && (e.message as { type?: unknown }).type === "left"
      ? { ...e, message: { ...(e.message as object), kicked: true } }
      : e,
  );
  return { ...step, effects };
}
