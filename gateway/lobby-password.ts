import { scrypt } from "node:crypto";

/**
 * Lobby passwords are hashed here, at the edge, before any message carries them: a lobby, its snapshot,
 * its frames and the logs only ever see the hash. scrypt (N = 2^14, r = 8, p = 1; about 16 MiB and a few
 * tens of milliseconds, on libuv's thread pool, so the event loop is not held) with the lobby's code in the
 * salt: every node computes the same hash for the same lobby (the lobby compares hashes, wherever it
 * lives), and one lobby's hash says nothing of another's with the same password. The code is short, so
 * the salt is not secret; the cost per guess and the rate limit on wrong ones are what slow a guesser.
 */

const version = "scrypt1";
const params = { N: 16_384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const keyLength = 32;

/** The hash a lobby keeps (and compares) for `password`, for the lobby with this (normalised) code. */
export function hashLobbyPassword(code: string, password: string): Promise<string> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), `foyer-lobby:${code}`, keyLength, params, (error, key) => {
      if (error) reject(error);
      else resolve(`${version}:${key.toString("base64url")}`);
    });
  });
}
