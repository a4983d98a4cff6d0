import { describe, expect, it } from "vitest";
import {
  activityFrameSchema,
  activitySettingsFileSchema,
  activitySettingsSchema,
  activityTransferFrameSchema,
  capacity,
  minimum,
  playerAdded,
} from "../../actors/activity/index.ts";
import { race } from "./support/activity-driver.ts";

const settings = (patch: object) => activitySettingsSchema.parse({ ...race, ...patch });

describe("activity settings (SPEC §2: capacity and minimum)", () => {
  it("fills in the defaults: no map, no solo play", () => {
    const { map: _map, ...rest } = race;
    expect(activitySettingsSchema.parse(rest)).toEqual({ ...rest, map: null, soloPlay: false });
  });

  it("capacity is maxTeams when maxTeamSize is 1, else maxTeamSize", () => {
    expect(capacity(settings({ maxTeams: 6, maxTeamSize: 1 }))).toBe(6);
    expect(capacity(settings({ minTeams: 1, maxTeams: 1, maxTeamSize: 4 }))).toBe(4);
  });

  it("minimum is minTeams when maxTeamSize is 1, else minTeamSize", () => {
    expect(minimum(settings({ minTeams: 3, maxTeams: 6, minTeamSize: 1, maxTeamSize: 1 }))).toBe(3);
    expect(minimum(settings({ minTeams: 1, maxTeams: 1, minTeamSize: 2, maxTeamSize: 4 }))).toBe(2);
  });

  it("solo play (the seed's solo_racing override) makes one player enough", () => {
    expect(minimum(settings({ minTeams: 3, soloPlay: true }))).toBe(1);
    expect(
      minimum(settings({ minTeamSize: 2, maxTeamSize: 4, maxTeams: 1, minTeams: 1, soloPlay: true })),
    ).toBe(1);
  });

  it("refuses minimums above maximums, unknown fields and keys that cannot be part of an actor key", () => {
    expect(activitySettingsSchema.safeParse({ ...race, minTeams: 5 }).success).toBe(false);
    expect(activitySettingsSchema.safeParse({ ...race, minTeamSize: 2 }).success).toBe(false);
    expect(activitySettingsSchema.safeParse({ ...race, instanceMapID: 1203 }).success).toBe(false);
    expect(activitySettingsSchema.safeParse({ ...race, id: "race/2" }).success).toBe(false);
    expect(activitySettingsSchema.safeParse({ ...race, waitTime: -1 }).success).toBe(false);
  });

  it("a configuration file lists activities, each id once", () => {
    const file = { activities: [race, { ...race, id: "race-b" }] };
    expect(activitySettingsFileSchema.parse(file).activities.map((a) => a.id)).toEqual(["race", "race-b"]);
    expect(activitySettingsFileSchema.safeParse({ activities: [race, race] }).success).toBe(false);
    expect(activitySettingsFileSchema.safeParse({ activities: [race], extra: 1 }).success).toBe(false);
  });
});

describe("activity frames", () => {
  it("PLAYER_ADDED shows a chosen vehicle before the player's line, and validates", () => {
    const frame = playerAdded({ id: "bob", name: "Bob", vehicle: "car-7" });
    expect(Object.keys(frame)).toEqual(["type", "event", "vehicle", "player", "name"]);
    expect(activityFrameSchema.parse(frame)).toEqual(frame);
    expect(Object.keys(playerAdded({ id: "bob", name: "Bob", vehicle: null }))).toEqual([
      "type",
      "event",
      "player",
      "name",
    ]);
  });

  it("refuses a frame whose fields do not match its event", () => {
    expect(activityFrameSchema.safeParse({ type: "activity", event: "PLAYER_READY", time: 3 }).success).toBe(
      false,
    );
    expect(activityFrameSchema.safeParse({ type: "activity", event: "MATCH_FOUND" }).success).toBe(false);
    expect(
      activityTransferFrameSchema.safeParse({
        type: "activityTransfer",
        activity: "race",
        map: null,
        room: "ABCDEF",
        token: "t",
        team: null,
      }).success,
    ).toBe(true);
  });
});
