/**
 * Which nats-server versions the fleet accepts. Lives in fleet/ so both the connection (fleet) and the
 * installer (ops) use one rule without ops being imported by fleet.
 */

/** A parsed `major.minor.patch` version; a pre-release suffix (`-beta.1`) is kept but not compared. */
export interface NatsVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly text: string;
}

/** The oldest nats-server the fleet runs on. */
export const minimumNatsVersion = "2.10.0";

const versionPattern = /v?(\d+)\.(\d+)\.(\d+)(?:[-+][0-9A-Za-z.-]+)?/;

/** Thrown when a nats-server is too old (or does not say which version it is). */
export class NatsVersionError extends Error {
  constructor(
    readonly version: string,
    message: string,
  ) {
    super(message);
    this.name = "NatsVersionError";
  }
}

/**
 * Parses `2.10.27`, `v2.10.27`, `2.11.0-beta.1` or a line such as `nats-server: v2.10.27`; null when no
 * version is found.
 */
export function parseNatsVersion(text: string): NatsVersion | null {
  const match = versionPattern.exec(text);
  if (match === null) return null;
  const [whole, major, minor, patch] = match;
  return { major: Number(major), minor: Number(minor), patch: Number(patch), text: whole.replace(/^v/, "") };
}

/** Negative, zero or positive as `a` is older than, as old as, or newer than `b` (pre-release ignored). */
export function compareNatsVersions(a: NatsVersion, b: NatsVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/** True when `version` (as the server reports it) is at least minimumNatsVersion. */
export function isSupportedNatsVersion(version: string): boolean {
  const parsed = parseNatsVersion(version);
  const minimum = parseNatsVersion(minimumNatsVersion);
  return parsed !== null && minimum !== null && compareNatsVersions(parsed, minimum) >= 0;
}

/**
 * Throws NatsVersionError unless `serverVersion` is at least 2.10.0, saying why: on a replicated stream,
 * 2.9 before 2.9.21 lets several compare-and-set writes from the same revision win (nats-server #4320),
 * and claims and fenced snapshots are compare-and-set writes.
 */
export function assertNatsVersion(serverVersion: string): NatsVersion {
  const parsed = parseNatsVersion(serverVersion);
  if (parsed === null) {
    throw new NatsVersionError(
      serverVersion,
      `cannot tell the nats-server version from ${JSON.stringify(serverVersion)}; Foyer needs nats-server >= ${minimumNatsVersion}`,
    );
  }
  if (!isSupportedNatsVersion(parsed.text)) {
    throw new NatsVersionError(
      parsed.text,
      `nats-server ${parsed.text} is too old: Foyer needs >= ${minimumNatsVersion}. On a replicated ` +
        "(R3) stream, nats-server 2.9 lets several compare-and-set writes made from the same revision " +
        "succeed (nats-server #4320), so two nodes could both take one lobby. Use nats-server 2.10 " +
        "or newer (`npx tsx ops/nats/install.ts` fetches one; NATS_SERVER_BIN names another binary).",
    );
  }
  return parsed;
}
