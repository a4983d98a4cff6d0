import type { ActorSystem, AskResult } from "../../actors/runtime/index.ts";
import type { BrowseAnswer, BrowseLine } from "../../actors/directory/index.ts";
import { browseLimit } from "../../actors/directory/index.ts";
import type { QueryFilterInput } from "../../fleet/listings/index.ts";
import { checkQuery, type ListedLobby } from "../../fleet/listings/index.ts";
import type { BrowseRequestFrame } from "../protocol/client-frames.ts";
import type { LobbyListings } from "./query-requests.ts";

/** A browse line: the fields browse has always answered. */
function browseLine(line: ListedLobby): BrowseLine {
  const { code, mode, map, freeSeats, members, playing } = line;
  return { code, mode, map, freeSeats, members, playing };
}

/** The lobbies of a browse: a query of the index by mode and free seats, by code, at most 100. */
function browseLobbies(frame: BrowseRequestFrame, listings: LobbyListings): BrowseLine[] {
  const filters: QueryFilterInput[] = [];
  if (frame.mode !== undefined) filters.push({ field: "mode", op: "eq", value: frame.mode });
  if (frame.freeOnly === true) filters.push({ field: "freeSeats", op: "gt", value: 0 });
  const query = checkQuery({ filters, order: { field: "code" }, limit: browseLimit }, listings.indexed);
  return listings.index.query(query).lobbies.map(browseLine);
}

/**
 * A browse of public lobbies and rooms, with only the filters sent. Its lobbies are a query of the node's
 * index of the fleet's public lobbies; its rooms are the directory actor's (without an index, the lobbies
 * are the directory's too, as before).
 */
export async function browse(
  system: ActorSystem,
  frame: BrowseRequestFrame,
  listings?: LobbyListings,
): Promise<AskResult> {
  const kind = frame.kind ?? "all";
  const askDirectory = listings === undefined || kind !== "lobbies";
  const directory = askDirectory
    ? await system.ask("directory/lobbies", {
        type: "browse",
        kind: listings === undefined ? kind : "rooms",
        ...(frame.mode === undefined ? {} : { mode: frame.mode }),
        ...(frame.freeOnly === undefined ? {} : { freeOnly: frame.freeOnly }),
      })
    : ({ ok: true, value: { lobbies: [], rooms: [] } } as const);
  if (!directory.ok || listings === undefined) return directory;
  const rooms = (directory.value as BrowseAnswer).rooms;
  const lobbies = kind === "rooms" ? [] : browseLobbies(frame, listings);
  return { ok: true, value: { lobbies, rooms } satisfies BrowseAnswer };
}
