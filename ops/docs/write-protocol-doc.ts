import { readFileSync, writeFileSync } from "node:fs";
import { withFreshReference } from "./protocol-reference.ts";

/** `npm run docs`: rewrites the generated reference in docs/protocol.md from the schemas. */
const path = new URL("../../docs/protocol.md", import.meta.url);
writeFileSync(path, withFreshReference(readFileSync(path, "utf8")));
process.stdout.write("docs/protocol.md: reference regenerated\n");
