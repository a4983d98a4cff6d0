import type { ActorContext } from "../runtime/index.ts";
import type { LobbyOptions } from "./lobby-options.ts";

/** What a lobby handler reads besides its state and message. */
export interface LobbyEnv {
  readonly options: LobbyOptions;
  readonly ctx: ActorContext;
}
