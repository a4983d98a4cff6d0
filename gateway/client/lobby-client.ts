import type { DataValue, DataVisibility } from "../../actors/lobby/lobby-data-schema.ts";
import { ClientCore } from "./client-core.ts";

/** A lobby data key to set: its value, and who sees it (a new key is `public` without one). */
export interface LobbyDataEntry {
  readonly value: DataValue;
  readonly visibility?: DataVisibility;
}

/** A lobby's door: seats, lock, password (`null` removes it). */
export interface LobbyDoor {
  readonly maxMembers?: number;
  readonly locked?: boolean;
  readonly password?: string | null;
}

/**
 * The private lobby's data, door, moderation and chat (docs/lobbies.md), typed. Every change answers the
 * lobby's new `version`; the `lobby` event that follows carries it too.
 */
export class LobbyClient extends ClientCore {
  /**
   * Host only: sets and deletes lobby data keys in one step. With `ifVersion` (a `lobby` frame's
   * `version`), the update applies only if nothing changed since: otherwise it fails VERSION_CONFLICT.
   */
  setLobbyData(
    set: Readonly<Record<string, LobbyDataEntry>>,
    opts: { delete?: readonly string[]; ifVersion?: number } = {},
  ): Promise<{ version: number }> {
    const { delete: deleted, ifVersion } = opts;
    return this.call({
      type: "setLobbyData",
      set: { ...set },
      ...(deleted === undefined ? {} : { delete: [...deleted] }),
      ...(ifVersion === undefined ? {} : { ifVersion }),
    }) as Promise<{ version: number }>;
  }

  /** Sets and deletes keys of this player's own member data (every member sees it). */
  setMemberData(
    set: Readonly<Record<string, DataValue>>,
    opts: { delete?: readonly string[] } = {},
  ): Promise<{ version: number }> {
    return this.call({
      type: "setMemberData",
      set: { ...set },
      ...(opts.delete === undefined ? {} : { delete: [...opts.delete] }),
    }) as Promise<{ version: number }>;
  }

  /** Host only: changes the door (seats down to the members there are, lock, password). */
  setLobbyDoor(door: LobbyDoor): Promise<{ version: number }> {
    const fields = Object.fromEntries(Object.entries(door).filter(([, value]) => value !== undefined));
    return this.call({ type: "setLobbyDoor", ...fields }) as Promise<{ version: number }>;
  }

  /** Host only: locks the lobby (no joins; the members stay), or opens it again. */
  lock(locked = true): Promise<{ version: number }> {
    return this.setLobbyDoor({ locked });
  }

  /** Host only: takes `player` out, told `reason`; with `ban`, it cannot join this lobby again. */
  kick(player: string, opts: { ban?: boolean; reason?: string } = {}): Promise<unknown> {
    return this.call({ type: "kick", player, ...opts });
  }

  /** A chat line to every member (`all`) or the sender's team of the last room (`team`). Not kept. */
  sendLobbyChat(text: string, channel: "all" | "team" = "all"): Promise<unknown> {
    return this.call({ type: "lobbyChat", channel, text });
  }
}
