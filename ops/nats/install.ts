import { findNatsServer } from "./ensure-nats-server.ts";

/**
 * `npx tsx ops/nats/install.ts`: makes sure a nats-server >= 2.10 is available (fetching Debian trixie's
 * package into .foyer/nats when needed) and prints its path and version. Exit code 1 when none can be had.
 */
try {
  const server = await findNatsServer({ log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${server.path}\nnats-server ${server.version.text}\n`);
} catch (error) {
  if (!(error instanceof Error)) throw error;
  process.stderr.write(`foyer: ${error.message}\n`);
  process.exitCode = 1;
}
