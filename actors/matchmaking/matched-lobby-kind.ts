import { andThen, type ActorContext, type ActorKind } from "../runtime/index.ts";
import type { MatchedLobbyMessage } from "./matched-lobby-messages.ts";
import { matchedLobbyInitSchema, parseMatchedLobbyMessage } from "./matched-lobby-messages.ts";
import { membersOf } from "./matched-lobby-membership.ts";
import { handleMatchedLobby, matchedLobbyIdle } from "./matched-lobby-machine.ts";
import type { LobbyStep, MatchedLobbyEnv, MatchedLobbyOptionsInput } from "./matched-lobby-options.ts";
import { matchedLobbyOptionsSchema } from "./matched-lobby-options.ts";
import { withReport } from "./matched-lobby-report.ts";
import type { MatchedLobbyState } from "./matched-lobby-state.ts";
import { matchedLobbySchemaVersion, upgradeMatchedLobbyState } from "./matched-lobby-state.ts";
import { settle } from "./matched-lobby-start.ts";
import { armTimetable, timetableFrom } from "./matched-lobby-timers.ts";
import { chooseTeam, freeByTeam } from "./lobby-rules.ts";
import { pushView } from "./matched-lobby-frames.ts";

/** The matched lobby kind (`mmlobby/<type>/<n>`), SPEC §3. */

/**
 * A new lobby owned by the creating group's first player, its timetable starting now. An invalid init,
 * or a group that fits no team, is the queue's bug: it throws and the runtime reports it.
 */
export function createMatchedLobby(init: unknown, env: MatchedLobbyEnv): LobbyStep {
  const { lobbyType, queue, region, settings, group } = matchedLobbyInitSchema.parse(init);
  const team = chooseTeam(lobbyType.teams, freeByTeam(lobbyType.teams, []), group.team, group.players.length);
  const owner = group.players[0];
  if (team === undefined || owner === undefined)
    throw new RangeError(`the group fits no team of ${lobbyType.id}`);
  const timetable = timetableFrom(env.ctx.now, lobbyType.rules);
  const state: MatchedLobbyState = {
    lobbyType,
    queue,
    region,
    owner: owner.id,
    settings,
    phase: "early",
    round: 1,
    timetable,
    members: membersOf(group, team),
    accepting: null,
    room: null,
    reports: 0,
  };
  const created = andThen({ state, effects: armTimetable(timetable) }, (s) => settle(s, env));
  const view = created.effects.some((e) => e.type === "push") ? [] : pushView(created.state, env.ctx.key);
  return withReport(undefined, { state: created.state, effects: [...created.effects, ...view] }, env.ctx.key);
}

/** Makes the matched lobby kind; the options are validated once here. */
export function matchedLobbyKind(
  options: MatchedLobbyOptionsInput = {},
): ActorKind<MatchedLobbyState, MatchedLobbyMessage> {
  const checked = matchedLobbyOptionsSchema.parse(options);
  const envOf = (ctx: ActorContext): MatchedLobbyEnv => ({ options: checked, ctx });
  return {
    kind: "mmlobby",
    schemaVersion: matchedLobbySchemaVersion,
    create: (init, ctx) => createMatchedLobby(init, envOf(ctx)),
    parse: parseMatchedLobbyMessage,
    handle: (state, message, ctx) =>
      withReport(state, handleMatchedLobby(state, message, envOf(ctx)), ctx.key),
    upgrade: upgradeMatchedLobbyState,
    idle: matchedLobbyIdle,
  };
}
