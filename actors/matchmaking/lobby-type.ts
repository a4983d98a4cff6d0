import { z } from "zod";

/**
 * Lobby types of rating matchmaking (SPEC §3), read from configuration, never from code. The names are
 * the seed's (`lobbyTypeDef`: `teams`, `rules`, `roomConfig`); times are in seconds.
 */

/** A lobby type id: the last part of `queue/<type>`, so no slash. */
export const lobbyTypeIdSchema = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "letters, digits, _ . - (1–64)");

/** A team code, as requests name it (`"all"` in the seed). */
export const teamCodeSchema = z.string().regex(/^[A-Za-z0-9_.-]{1,32}$/);

/** Free-form JSON a studio passes through (room config, owner settings, a member's extra, filter data). */
export const jsonObjectSchema = z.record(z.string(), z.json());

/** A plain JSON object. */
export type JsonObject = z.output<typeof jsonObjectSchema>;

const seconds = z.number().min(0).max(86_400);

/** One team of a lobby type. */
export const teamSchema = z
  .strictObject({
    code: teamCodeSchema,
    minUsers: z.number().int().min(0).max(1000),
    maxUsers: z.number().int().min(1).max(1000),
    /** Joiners who name no team may be placed here (the team with the most free room wins). */
    autoAssign: z.boolean(),
  })
  .refine((t) => t.minUsers <= t.maxUsers, {
    message: "minUsers must not exceed maxUsers",
    path: ["minUsers"],
  });

/** One team's definition. */
export type Team = z.output<typeof teamSchema>;

/** The start rules of SPEC §3, with the seed's names. */
export const startRulesSchema = z
  .strictObject({
    allowEarlyStartWithoutMax: z.boolean(),
    forceOnTimeStartWithoutReady: z.boolean(),
    allowJoinInProgress: z.boolean(),
    onTimeStartSecs: seconds,
    disbandOnStart: z.boolean(),
    everyReadyMinPercent: z.number().min(0).max(100),
    everyReadyMinNum: z.number().int().min(0).max(1000),
    earliestStartSecs: seconds,
    tooLateSecs: seconds,
  })
  .refine((r) => r.earliestStartSecs <= r.onTimeStartSecs, {
    message: "earliestStartSecs must not exceed onTimeStartSecs",
    path: ["earliestStartSecs"],
  })
  .refine((r) => r.onTimeStartSecs <= r.tooLateSecs, {
    message: "onTimeStartSecs must not exceed tooLateSecs",
    path: ["onTimeStartSecs"],
  });

/** A lobby type's start rules. */
export type StartRules = z.output<typeof startRulesSchema>;

/** The optional accept phase (SPEC §3, §4): every member must accept within `timeoutSecs`. */
export const acceptPhaseSchema = z.strictObject({ timeoutSecs: z.number().min(1).max(600) });

/** One lobby type, as configured. */
export const lobbyTypeSchema = z
  .strictObject({
    id: lobbyTypeIdSchema,
    desc: z.string().max(256).default(""),
    teams: z.array(teamSchema).min(1).max(16),
    roomConfig: jsonObjectSchema.default({}),
    rules: startRulesSchema,
    /** Absent: matched lobbies start without asking their members. */
    accept: acceptPhaseSchema.optional(),
    /**
     * Present: the queue itself matches full groups of players (every team at `maxUsers`) and asks each
     * to accept within `timeoutSecs` (SPEC §4); no matched lobby is made and `createLobby` is refused.
     */
    queueAccept: acceptPhaseSchema.optional(),
    /** This type's queue step (the node's `stepSeconds`, 2, when absent). */
    stepSeconds: z.number().min(0.1).max(60).optional(),
    /** The name of a filter registered in code; run last on every candidate lobby. */
    filter: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/)
      .optional(),
  })
  .refine((t) => new Set(t.teams.map((team) => team.code)).size === t.teams.length, {
    message: "team codes must be unique",
    path: ["teams"],
  });

/** A lobby type with every field present. */
export type LobbyType = z.output<typeof lobbyTypeSchema>;

/** A lobby type as configuration writes it (defaults left out). */
export type LobbyTypeInput = z.input<typeof lobbyTypeSchema>;

/** The configuration file: every lobby type, ids unique. */
export const lobbyTypesFileSchema = z
  .strictObject({ lobbyTypes: z.array(lobbyTypeSchema) })
  .refine((f) => new Set(f.lobbyTypes.map((t) => t.id)).size === f.lobbyTypes.length, {
    message: "lobby type ids must be unique",
    path: ["lobbyTypes"],
  });

/** The checked file. */
export type LobbyTypesFile = z.output<typeof lobbyTypesFileSchema>;

/** The file as written. */
export type LobbyTypesFileInput = z.input<typeof lobbyTypesFileSchema>;

/** The lobby type with this id. */
export function findLobbyType(file: LobbyTypesFile, id: string): LobbyType | undefined {
  return file.lobbyTypes.find((t) => t.id === id);
}
