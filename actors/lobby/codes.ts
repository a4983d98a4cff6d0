import type { Random } from "../runtime/index.ts";

/** Lobby codes: how players type them and how new ones are drawn. */

/** A code as a player typed it, made comparable: surrounding blanks dropped, letters upper-cased. */
export function normalizeCode(raw: string): string {
  return raw.trim().toUpperCase();
}

/**
 * A new code of `length` characters from `alphabet`. Uniqueness is not checked here: the claim in the
 * cluster decides, and a collision is answered by drawing again.
 */
export function drawCode(random: Random, length: number, alphabet: string): string {
  let code = "";
  for (let i = 0; i < length; i++) code += alphabet.charAt(random.int(alphabet.length));
  return code;
}

/** The actor key of the lobby with this code. */
export function lobbyKey(code: string): string {
  return `lobby/${code}`;
}

/** The actor key of the room with this code. */
export function roomKey(code: string): string {
  return `room/${code}`;
}

/** The actor key of a player's registry entry. */
export function playerKey(player: string): string {
  return `player/${player}`;
}

/** The key of the one directory of public lobbies. */
export const directoryKey = "directory/lobbies";

/** The part of an actor key after its kind, e.g. `ABC123` for `lobby/ABC123`. */
export function keyName(key: string): string {
  const slash = key.indexOf("/");
  return slash < 0 ? key : key.slice(slash + 1);
}
