import { activityDirectoryKind, activityLobbyKind } from "../../actors/activity/index.ts";
import { directoryKind } from "../../actors/directory/index.ts";
import { defaultLobbyOptions, lobbyKind, type LobbyOptions } from "../../actors/lobby/index.ts";
import { matchedLobbyKind, queueKind } from "../../actors/matchmaking/index.ts";
import { playerKind } from "../../actors/player/index.ts";
import { roomKind } from "../../actors/room/index.ts";
import type { ActorSystem } from "../../actors/runtime/index.ts";
import type { NodeConfig } from "../config.ts";

/** The lobby options a configuration gives. */
export function lobbyOptionsOf(config: NodeConfig): LobbyOptions {
  return {
    ...defaultLobbyOptions,
    codeLength: config.codeLength,
    codeAlphabet: config.codeAlphabet,
    maxMembers: config.maxMembers,
    teamSizes: config.teamSizes,
    lobbyGraceSeconds: config.lobbyGraceSeconds,
    failoverGraceSeconds: config.failoverGraceSeconds,
    reconnectGraceSeconds: config.reconnectGraceSeconds,
    returnAfterEndSeconds: config.returnAfterEndSeconds,
    botSeatIdBase: config.botSeatIdBase,
  };
}

/** Every actor kind a node serves, the same on an embedded node and in a fleet. */
export function registerKinds(system: ActorSystem, config: NodeConfig): void {
  system
    .register(lobbyKind(lobbyOptionsOf(config)))
    .register(roomKind({}))
    .register(playerKind({}), { createOnDemand: true })
    .register(directoryKind({}), { createOnDemand: true })
    // Activity lobbies (docs/activity.md): a directory per configured activity, made on its first join;
    // the lobbies are spawned by their directory.
    .register(activityDirectoryKind(config.activities), { createOnDemand: true })
    // Grace, transfer window and room codes come from the activities file (its `lobby` block).
    .register(activityLobbyKind(config.activities.lobby))
    // Rating matchmaking (docs/matchmaking.md): a queue per configured lobby type, made on its first
    // request; the matched lobbies are spawned by their queue.
    // A search without pingData, and a new lobby's region then, is the node's region (SPEC §3 ping).
    .register(queueKind(config.lobbyTypes, config.region ? { defaultRegion: config.region } : {}), {
      createOnDemand: true,
    })
    .register(matchedLobbyKind());
}
