import type { ActorKind, Effect, Transition } from "../runtime/index.ts";
import type { LobbyMessage } from "./lobby-messages.ts";
import { parseLobbyMessage } from "./lobby-messages.ts";
import { lobbyEvents } from "./lobby-events.ts";
import { handleLobby, lobbyIdle } from "./lobby-machine.ts";
import { createLobby } from "./lobby-create.ts";
import type { LobbyOptions } from "./lobby-options.ts";
import { lobbyOptionsSchema } from "./lobby-options.ts";
import type { LobbyState } from "./lobby-state.ts";
import { lobbySchemaVersion, roomRunning } from "./lobby-state.ts";
import { upgradeLobbyState } from "./lobby-upgrade.ts";
import { stampVersion } from "./lobby-version.ts";
import { announceEffects, visibilityEffects } from "./visibility.ts";

/** The private-lobby actor kind (`lobby/<CODE>`), SPEC §1. */

/**
 * Adds the directory effects a public lobby owes after a transition and the studio's events, and keeps `stop` last so the
 * runtime carries out everything else before it deletes the actor.
 */
function withVisibility(
  before: LobbyState | null,
  transition: Transition<LobbyState>,
  options: LobbyOptions,
  message: string | null,
): Transition<LobbyState> {
  const stopped = transition.effects.some((e) => e.type === "stop");
  // Asked by the directory, or restored on a new node: say the listing again, changed or not.
  const announce = message === "listingCheck" ? "asked" : message === "restored" ? "restored" : null;
  const visibility =
    announce !== null && !stopped
      ? announceEffects(transition.state, options, announce === "asked")
      : visibilityEffects(before, transition.state, stopped, options);
  // The studio's events (docs/server-api.md): only a change can make one.
  const events = transition.state === before ? [] : lobbyEvents(before, transition.state, message, stopped);
  if (visibility.length === 0 && events.length === 0 && !stopped) return transition;
  const effects: Effect[] = transition.effects.filter((e) => e.type !== "stop");
  effects.push(...visibility, ...events);
  if (stopped) effects.push({ type: "stop" });
  return { ...transition, effects };
}

/** Makes the lobby kind; the options are validated once here, so a bad configuration fails at start-up. */
export function lobbyKind(options: LobbyOptions): ActorKind<LobbyState, LobbyMessage> {
  const checked = lobbyOptionsSchema.parse(options);
  return {
    kind: "lobby",
    schemaVersion: lobbySchemaVersion,
    create: (init, ctx) => withVisibility(null, createLobby(init, ctx, checked), checked, null),
    parse: parseLobbyMessage,
    handle: (state, message, ctx) => {
      const step = stampVersion(state, handleLobby(state, message, { options: checked, ctx }));
      return withVisibility(state, step, checked, message.type);
    },
    upgrade: (state, version) => upgradeLobbyState(state, version, checked.maxMembers),
    idle: lobbyIdle,
    // A lobby whose room runs stays with it; a drain moves it once the room has ended.
    pinned: roomRunning,
  };
}
