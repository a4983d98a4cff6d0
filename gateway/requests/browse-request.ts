import type { ActorSystem, AskResult } from "../../actors/runtime/index.ts";
import type { BrowseRequestFrame } from "../protocol/client-frames.ts";

/** A browse of public lobbies and rooms: the lobby directory answers it, with only the filters sent. */
export function browse(system: ActorSystem, frame: BrowseRequestFrame): Promise<AskResult> {
  return system.ask("directory/lobbies", {
    type: "browse",
    ...(frame.kind === undefined ? {} : { kind: frame.kind }),
    ...(frame.mode === undefined ? {} : { mode: frame.mode }),
    ...(frame.freeOnly === undefined ? {} : { freeOnly: frame.freeOnly }),
  });
}
