import type { Command } from "commander";
import { packSdk } from "../sdk/pack-sdk.ts";

/** `foyer sdk-pack`: the TypeScript SDK as an npm tarball (sdk/README.md). */
export function addSdkPackCommand(program: Command): void {
  program
    .command("sdk-pack")
    .description(
      "build the TypeScript SDK package (@foyer/client: ESM, .d.ts, a browser bundle) and npm pack it",
    )
    .option("--out <dir>", "where the tarball goes", ".foyer/sdk")
    .option("--json", "print the tarball and the repository files bundled and declared in it, as JSON")
    .action(async (opts: { out: string; json?: boolean }) => {
      const packed = await packSdk(opts.out);
      process.stdout.write(opts.json ? `${JSON.stringify(packed)}\n` : `${packed.tarball}\n`);
    });
}
