import { readFileSync, writeFileSync } from "node:fs";
import { format } from "prettier";
import { schemaFileText } from "../conformance/scenario-format.ts";
import { withFreshReference } from "./protocol-reference.ts";

/** `npm run docs`: rewrites the generated reference in docs/protocol.md from the schemas. */
const path = new URL("../../docs/protocol.md", import.meta.url);
writeFileSync(path, withFreshReference(readFileSync(path, "utf8")));
process.stdout.write("docs/protocol.md: reference regenerated\n");

/** And the JSON Schema of conformance scenarios, for runners in other languages. */
writeFileSync(
  new URL("../../conformance/scenario.schema.json", import.meta.url),
  await format(schemaFileText(), { parser: "json" }),
);
process.stdout.write("conformance/scenario.schema.json: regenerated\n");
