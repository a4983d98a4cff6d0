import type { ActorContext, Transition } from "../runtime/index.ts";
import type { ActivityLobbyOptions } from "./activity-lobby-options.ts";
import type { ActivityLobbyState } from "./activity-lobby-state.ts";

/** What an activity lobby handler reads besides its state and message. */
export interface ActivityEnv {
  readonly options: ActivityLobbyOptions;
  readonly ctx: ActorContext;
}

/** One activity lobby transition. */
export type Step = Transition<ActivityLobbyState>;
