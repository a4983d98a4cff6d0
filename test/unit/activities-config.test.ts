import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findActivity, minimum } from "../../actors/activity/index.ts";
import { exampleActivities } from "../../ops/activities.ts";
import { ConfigError, loadConfig } from "../../ops/config.ts";

function fileWith(content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "foyer-activities-")), "activities.json");
  writeFileSync(path, content);
  return path;
}

function refusal(flags: Record<string, string>, env: Record<string, string> = {}): ConfigError {
  try {
    loadConfig(flags, env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("the configuration was accepted");
}

const race = {
  id: "race",
  minTeams: 2,
  maxTeams: 4,
  minTeamSize: 1,
  maxTeamSize: 1,
  waitTime: 30,
  startDelay: 1,
};

describe("activities configuration", () => {
  it("defaults to the built-in example set", () => {
    const ids = loadConfig({}, {}).activities.activities.map((a) => a.id);
    expect(ids).toEqual(exampleActivities.activities.map((a) => a.id));
    expect(ids).toContain("race");
  });

  it("reads the file of --activities-file or FOYER_ACTIVITIES_FILE, with the schema's defaults", () => {
    const path = fileWith(JSON.stringify({ activities: [race] }));
    const fromFlag = loadConfig({ activitiesFile: path }, {}).activities;
    expect(fromFlag.activities).toEqual([{ ...race, map: null, soloPlay: false }]);
    expect(loadConfig({}, { FOYER_ACTIVITIES_FILE: path }).activities).toEqual(fromFlag);
  });

  it("refuses a file that breaks the schema, naming the setting and the zod issue", () => {
    const path = fileWith(JSON.stringify({ activities: [{ ...race, minTeams: 5 }] }));
    const error = refusal({ activitiesFile: path });
    expect(error.setting).toBe("activitiesFile");
    expect(error.message).toContain("--activities-file");
    expect(error.message).toContain("FOYER_ACTIVITIES_FILE");
    expect(error.message).toContain("activities.0.minTeams: minTeams must not exceed maxTeams");
  });

  it("refuses duplicate ids, unknown fields, bad JSON and a missing file", () => {
    const twice = refusal({ activitiesFile: fileWith(JSON.stringify({ activities: [race, race] })) });
    expect(twice.message).toContain("activity ids must be unique");
    const extra = refusal({ activitiesFile: fileWith(JSON.stringify({ activities: [{ ...race, x: 1 }] })) });
    expect(extra.message).toContain("activities.0");
    expect(refusal({ activitiesFile: fileWith("{ not json") }).message).toContain("not JSON");
    const missing = refusal({ activitiesFile: "/nonexistent/activities.json" });
    expect(missing.setting).toBe("activitiesFile");
    expect(missing.message).toContain("cannot read the file");
  });

  it("applies the world-wide overrides: solo play for every activity, a map for those without one", () => {
    const withMap = { ...race, id: "own-map", map: "1101" };
    const path = fileWith(
      JSON.stringify({ activities: [race, withMap], overrides: { soloPlay: true, map: "2001" } }),
    );
    const file = loadConfig({ activitiesFile: path }, {}).activities;
    const plain = findActivity(file, "race")!;
    expect(plain).toMatchObject({ map: "2001", soloPlay: true });
    expect(minimum(plain)).toBe(1);
    // An activity's own map wins over the override.
    expect(findActivity(file, "own-map")).toMatchObject({ map: "1101", soloPlay: true });
  });

  it("without overrides every activity keeps its own settings", () => {
    const file = loadConfig({ activitiesFile: fileWith(JSON.stringify({ activities: [race] })) }, {});
    expect(file.activities.overrides).toEqual({ soloPlay: false, map: null });
    expect(findActivity(file.activities, "race")).toMatchObject({ map: null, soloPlay: false });
    expect(minimum(findActivity(file.activities, "race")!)).toBe(2);
  });

  it("reads the lobby options from the file's lobby block, with defaults for the rest", () => {
    const path = fileWith(
      JSON.stringify({ activities: [race], lobby: { graceSeconds: 0, transferSeconds: 30 } }),
    );
    expect(loadConfig({ activitiesFile: path }, {}).activities.lobby).toEqual({
      graceSeconds: 0,
      restoreGraceSeconds: 30,
      transferSeconds: 30,
      roomCodeLength: 6,
      roomCodeAlphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    });
    expect(loadConfig({}, {}).activities.lobby.graceSeconds).toBe(10);
  });

  it("refuses bad overrides and bad lobby options, naming the field", () => {
    const solo = refusal({
      activitiesFile: fileWith(JSON.stringify({ activities: [race], overrides: { soloPlay: "yes" } })),
    });
    expect(solo.message).toContain("overrides.soloPlay");
    const unknown = refusal({
      activitiesFile: fileWith(JSON.stringify({ activities: [race], overrides: { solo_racing: true } })),
    });
    expect(unknown.message).toContain("overrides");
    const grace = refusal({
      activitiesFile: fileWith(JSON.stringify({ activities: [race], lobby: { graceSeconds: -1 } })),
    });
    expect(grace.message).toContain("lobby.graceSeconds");
  });
});
