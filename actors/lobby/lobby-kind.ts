import type { ActorKind, Effect, Transition } from "../runtime/index.ts";
import type { LobbyMessage } from "./lobby-messages.ts";
import { parseLobbyMessage } from "./lobby-messages.ts";
import { handleLobby, lobbyIdle } from "./lobby-machine.ts";
import { createLobby } from "./lobby-membership.ts";
import type { LobbyOptions } from "./lobby-options.ts";
import { lobbyOptionsSchema } from "./lobby-options.ts";
import type { LobbyState } from "./lobby-state.ts";
import { lobbySchemaVersion, roomRunning, upgradeLobbyState } from "./lobby-state.ts";
import { announceEffects, visibilityEffects } from "./visibility.ts";

/** The private-lobby actor kind (`lobby/<CODE>`), SPEC §1. */

/**
 * Adds the directory effects a public lobby owes after a transition, and keeps `stop` last so the
 * runtime carries out everything else before it deletes the actor.
 */
function withVisibility(
  before: LobbyState | null,
  transition: Transition<LobbyState>,
  options: LobbyOptions,
  announce: "asked" | "restored" | null = null,
): Transition<LobbyState> {
  const stopped = transition.effects.some((e) => e.type === "stop");
  const visibility =
    announce !== null && !stopped
      ? announceEffects(transition.state, options, announce === "asked")
      : visibilityEffects(before, transition.state, stopped, options);
  if (visibility.length === 0 && !stopped) return transition;
  const effects: Effect[] = transition.effects.filter((e) => e.type !== "stop");
  effects.push(...visibility);
  if (stopped) effects.push({ type: "stop" });
  return { state: transition.state, effects };
}

/** Makes the lobby kind; the options are validated once here, so a bad configuration fails at start-up. */
export function lobbyKind(options: LobbyOptions): ActorKind<LobbyState, LobbyMessage> {
  const checked = lobbyOptionsSchema.parse(options);
  return {
    kind: "lobby",
    schemaVersion: lobbySchemaVersion,
    create: (init, ctx) => withVisibility(null, createLobby(init, ctx), checked),
    parse: parseLobbyMessage,
    handle: (state, message, ctx) =>
      withVisibility(
        state,
        handleLobby(state, message, { options: checked, ctx }),
        checked,
        // Asked by the directory, or restored on a new node: say the listing again, changed or not.
        message.type === "listingCheck" ? "asked" : message.type === "restored" ? "restored" : null,
      ),
    upgrade: upgradeLobbyState,
    idle: lobbyIdle,
    // A lobby whose room runs stays with it; a drain moves it once the room has ended.
    pinned: roomRunning,
  };
}
