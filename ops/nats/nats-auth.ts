import { readFileSync } from "node:fs";
import type { NatsAuth, NatsTls } from "../../fleet/index.ts";
import { checkCreds } from "./nats-creds.ts";

/** The NATS credential and TLS settings of a node (flags or `FOYER_NATS_*` variables). */
export interface NatsAuthSettings {
  readonly natsUser?: string | undefined;
  readonly natsPass?: string | undefined;
  readonly natsToken?: string | undefined;
  readonly natsNkeyFile?: string | undefined;
  readonly natsCreds?: string | undefined;
  readonly natsTlsCa?: string | undefined;
  readonly natsTlsCert?: string | undefined;
  readonly natsTlsKey?: string | undefined;
}

/** A credential file that cannot be read, or does not hold what its setting names. */
export class NatsAuthError extends Error {
  override readonly name = "NatsAuthError";
}

/**
 * The credentials and TLS to connect with, the files named read now (a missing or malformed file stops
 * the start with a message naming it, rather than a refused connection later). Only one kind of
 * credential may be set; TLS goes with any of them.
 */
export function natsAuthOf(settings: NatsAuthSettings): NatsAuth {
  const tls = natsTlsOf(settings);
  return { ...credentialsOf(settings), ...(tls === undefined ? {} : { tls }) };
}

/**
 * TLS when any of its settings is given: the CA to verify the servers with (else Node's own list), and a
 * client certificate with its key (both or neither). Each file must hold PEM.
 */
function natsTlsOf(settings: NatsAuthSettings): NatsTls | undefined {
  const { natsTlsCa: ca, natsTlsCert: cert, natsTlsKey: key } = settings;
  if (ca === undefined && cert === undefined && key === undefined) return undefined;
  if ((cert === undefined) !== (key === undefined)) {
    throw new NatsAuthError("NATS TLS: set --nats-tls-cert and --nats-tls-key together, or neither");
  }
  return {
    ...(ca === undefined ? {} : { ca: readPem(ca, "--nats-tls-ca", "certificate") }),
    ...(cert === undefined ? {} : { cert: readPem(cert, "--nats-tls-cert", "certificate") }),
    ...(key === undefined ? {} : { key: readPem(key, "--nats-tls-key", "private key") }),
  };
}

/** A PEM file's text; one without a block of that kind stops the start. */
function readPem(path: string, flag: string, what: "certificate" | "private key"): string {
  const text = readCredential(path, flag);
  const begin = what === "certificate" ? /-----BEGIN CERTIFICATE-----/ : /-----BEGIN [A-Z ]*PRIVATE KEY-----/;
  if (!begin.test(text)) throw new NatsAuthError(`${flag} ${path}: expected a PEM ${what}`);
  return text;
}

/** The credentials: one kind only. */
function credentialsOf(settings: NatsAuthSettings): NatsAuth {
  const kinds = [
    settings.natsUser !== undefined || settings.natsPass !== undefined ? "--nats-user/--nats-pass" : "",
    settings.natsToken === undefined ? "" : "--nats-token",
    settings.natsNkeyFile === undefined ? "" : "--nats-nkey-file",
    settings.natsCreds === undefined ? "" : "--nats-creds",
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
  if (settings.natsCreds !== undefined) return { creds: readCreds(settings.natsCreds) };
  return {
    ...(settings.natsUser === undefined ? {} : { user: settings.natsUser }),
    ...(settings.natsPass === undefined ? {} : { pass: settings.natsPass }),
    ...(settings.natsToken === undefined ? {} : { token: settings.natsToken }),
  };
}

/**
 * A `.creds` file's text, checked now: nats.js would read a malformed one only at the first connect, and
 * the server would refuse a wrong one with no more than "authorization violation". Windows line ends
 * become LF, which is all nats.js reads.
 */
function readCreds(path: string): string {
  const text = readCredential(path, "--nats-creds").replace(/\r\n/g, "\n");
  const checked = checkCreds(text, Date.now());
  if (typeof checked === "string") throw new NatsAuthError(`--nats-creds ${path}: ${checked}`);
  return text;
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
