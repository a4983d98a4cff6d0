import { readFileSync } from "node:fs";
import { z } from "zod";

/** This release's version, from package.json: published in heartbeats and `foyer status`. */
export const foyerVersion: string = z
  .object({ version: z.string() })
  .parse(JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))).version;
