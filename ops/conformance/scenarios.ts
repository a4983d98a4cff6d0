import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scenarioSchema, type Scenario } from "./scenario-format.ts";

/** Where the scenarios live: `conformance/scenarios/*.json` at the top of the repository. */
export const scenariosDir = fileURLToPath(new URL("../../conformance/scenarios/", import.meta.url));

/**
 * The lobby types the matchmaking scenarios use (the built-in `CursorPartyV2` and `conformance-duel`): a
 * node the whole suite runs against is started with `--lobby-types-file` naming this file.
 */
export const conformanceLobbyTypesFile = fileURLToPath(
  new URL("../../conformance/lobby-types.json", import.meta.url),
);

/** Reads and checks one scenario file: the schema, the name against the file name, and every step's client. */
export function parseScenario(text: string, fileName: string): Scenario {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`${fileName}: not JSON (${error instanceof Error ? error.message : String(error)})`, {
      cause: error,
    });
  }
  const parsed = scenarioSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${fileName}: ${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
  }
  const scenario = parsed.data;
  if (`${scenario.name}.json` !== fileName) throw new Error(`${fileName}: its name is "${scenario.name}"`);
  scenario.steps.forEach((step, i) => {
    if (!(step.client in scenario.clients)) {
      throw new Error(`${fileName}: step ${i + 1} names the client "${step.client}", not in clients`);
    }
    if ("connect" in step && (step.node ?? 1) > (scenario.nodes ?? 1)) {
      throw new Error(
        `${fileName}: step ${i + 1} connects to node ${step.node ?? 1} of ${scenario.nodes ?? 1}`,
      );
    }
  });
  return scenario;
}

/** Every scenario in the folder, sorted by name. */
export function loadScenarios(dir = scenariosDir): Scenario[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => parseScenario(readFileSync(join(dir, f), "utf8"), f));
}
