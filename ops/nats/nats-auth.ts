import { readFileSync } from "node:fs";
import type { NatsAuth } from "../../fleet/index.ts";

/** The NATS credential settings of a node (flags or `FOYER_NATS_*` variables). */
export interface NatsAuthSettings {
  readonly natsUser?: string | undefined;
  readonly natsPass?: string | undefined;
  readonly natsToken?: string | undefined;
  readonly natsNkeyFile?: string | undefined;
}

/** A credential file that cannot be read, or does not hold what its setting names. */
export class NatsAuthError extends Error {
  override readonly name = "NatsAuthError";
}

/**
 * The credentials to connect with, the files named read now (a missing or malformed file stops the start
 * with a message naming it, rather than a refused connection later). Only one kind may be set.
 */
export function natsAuthOf(settings: NatsAuthSettings): NatsAuth {
  const kinds = [
    settings.natsUser !== undefined || settings.natsPass !== undefined ? "--nats-user/--nats-pass" : "",
    settings.natsToken === undefined ? "" : "--nats-token",
    settings.natsNkeyFile === undefined ? "" : "--nats-nkey-file",
  ].filter((kind) => kind !== "");
  if (kinds.length > 1)
    throw new NatsAuthError(`NATS credentials: set one of ${kinds.join(", ")}, not several`);
  if (settings.natsNkeyFile !== undefined) {
    const seed = readCredential(settings.natsNkeyFile, "--nats-nkey-file").trim();
    if (!/^SU[A-Z2-7]{56}$/.test(seed)) {
      throw new NatsAuthError(
        `--nats-nkey-file ${settings.natsNkeyFile}: expected one NKey user seed (a line starting SU)`,
      );
    }
    return { nkeySeed: seed };
  }
  return {
    ...(settings.natsUser === undefined ? {} : { user: settings.natsUser }),
    ...(settings.natsPass === undefined ? {} : { pass: settings.natsPass }),
    ...(settings.natsToken === undefined ? {} : { token: settings.natsToken }),
  };
}

function readCredential(path: string, flag: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new NatsAuthError(`${flag} ${path}: cannot be read (${(error as Error).message})`, {
      cause: error,
    });
  }
}
