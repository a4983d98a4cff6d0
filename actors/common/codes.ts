import type { Random } from "../runtime/index.ts";

/** Lobby and room codes: how players type them and how new ones are drawn. */

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
