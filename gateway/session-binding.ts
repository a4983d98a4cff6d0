import type { ActorSystem, AskResult, OwnerLocation } from "../actors/runtime/index.ts";
import { signResumeToken, verifyResumeToken } from "./auth/resume-token.ts";
import type { PlayerClaims } from "./auth/player-token.ts";
import type { ConnectionDeps } from "./connection-deps.ts";
import type { HelloFrame } from "./protocol/client-frames.ts";
import { closeFor } from "./protocol/error-mapping.ts";
import { PROTOCOL_VERSION } from "./protocol/server-frames.ts";
import { freshSessionId, Session, type SessionSocket } from "./sessions/index.ts";

type BindDeps = Pick<
  ConnectionDeps,
  "sessions" | "sessionSecret" | "nodeId" | "protocol" | "region" | "regions"
>;

/**
 * Binds a socket that said a valid hello to the player's session: the resumed one, or a new one. The
 * newest login of a player wins: any older socket of the player is closed with REPLACED. Returns the
 * session and the welcome frame to send.
 */
export function bindSession(
  socket: SessionSocket,
  hello: HelloFrame,
  claims: Pick<PlayerClaims, "sub" | "name">,
  deps: BindDeps,
): { session: Session; welcome: { resumed: boolean } } {
  const player = claims.sub;
  const resumed = hello.resume ? verifyResumeToken(hello.resume, deps.sessionSecret) : undefined;
  const isResume = resumed?.player === player;
  const sessionId = isResume ? resumed.session : freshSessionId();
  const session = deps.sessions.get(sessionId) ?? new Session(sessionId, player, claims.name);
  session.name = claims.name;
  letGoOfHandedOff(session);
  const previous = session.socket;
  session.socket = socket;
  const replaced = deps.sessions.add(session);
  // Detach before closing: a socket closed because a newer one took over is not a disconnect.
  if (previous && previous !== socket) closeFor(previous, "REPLACED");
  if (replaced) {
    const older = replaced.socket;
    replaced.socket = null;
    deps.sessions.remove(replaced);
    letGoOfHandedOff(replaced);
    if (older) closeFor(older, "REPLACED");
    // The player's activity lobby and room belong to the player, not to the socket it used: the newer
    // login carries on in them (and locateLobby tells them the player is here).
    session.activity ??= replaced.activity;
    if (session.room === null && replaced.room !== null) {
      session.room = replaced.room;
      session.directRoom = replaced.directRoom;
    }
  }
  const welcome = {
    type: "welcome",
    protocol: Math.min(hello.protocol, deps.protocol ?? PROTOCOL_VERSION),
    session: session.id,
    resume: signResumeToken(session.id, player, deps.sessionSecret),
    player: { id: player, name: claims.name },
    node: deps.nodeId,
    // The SDK keys its measured round trip by it (`pingData`, SPEC §3).
    ...(deps.region ? { region: deps.region } : {}),
    // Every region's URL, so the SDK can measure its round trip to each (empty lists are left out).
    ...regionsOf(deps),
    resumed: isResume,
    lobbyHint: true,
    acks: true,
  };
  return { session, welcome };
}

/**
 * A session back on a node its lobby moved away from: the keys handed off are not its here any more (its
 * registry says where they are now), and this socket closing must not report the player gone from them.
 */
function letGoOfHandedOff(session: Session): void {
  const keys = session.handedOff;
  if (keys === null) return;
  session.handedOff = null;
  if (session.lobby !== null && keys.includes(session.lobby)) session.lobby = null;
  if (session.activity !== null && keys.includes(session.activity)) session.activity = null;
  if (session.room !== null && keys.includes(session.room)) session.room = null;
}

/** The fleet's regions for the welcome, left out when none is known. */
function regionsOf(deps: BindDeps): { regions?: { region: string; url: string }[] } {
  const regions = deps.regions?.() ?? [];
  return regions.length === 0 ? {} : { regions: regions.map((r) => ({ region: r.region, url: r.url })) };
}

/**
 * After a (re)connect: finds the player's lobby through its registry and marks the member connected; a
 * resumed session's activity lobby and room are told the player is back.
 * Membership belongs to the player, so a fresh login finds its lobby too. Never rejects.
 * @param lobbyHint the lobby code the client said it was in (`hello.lobby`), on a resume.
 * @param asked the player's record as the hello already asked for it (`get`), shared with the match
 *   lookup: the first lookup here reads it instead of asking the registry a second time.
 */
export async function locateLobby(
  system: ActorSystem,
  session: Session,
  socket: SessionSocket,
  fleet: LocateFleet = {},
  lobbyHint?: string,
  asked?: Promise<AskResult>,
): Promise<void> {
  const ownerOf = fleet.ownerOf ?? (() => Promise.resolve<OwnerLocation>({ kind: "here" }));
  // Told to retry while a key is taken over: wait for the takeover to land, at most the retry delay.
  const waitFor = fleet.waitForOwner ?? ((_key: string, ms: number) => sleep(ms));
  const now = fleet.now ?? wallClock;
  // A resumed session knows its activity lobby: the player is back, and gets the lobby's full picture.
  if (session.activity) {
    system.tell(session.activity, { type: "connection", player: session.player, connected: true });
  }
  // So does its room: the seat is connected again (the clock waits for the host's resume) and the
  // session gets the room frame.
  if (session.room) {
    system.tell(session.room, { type: "connection", player: session.player, connected: true });
  }
  // In a fleet the registry and the lobby may be being taken over (their node died): a retryable
  // answer is asked again until the wait runs out, never taken to mean "in no lobby".
  const deadline = now() + maxTakeoverWaitMs;
  const hinted = lobbyHint === undefined || session.activity !== null ? null : hintedKey(lobbyHint);
  if (
    hinted !== null &&
    (await resumeInHintedLobby(system, session, socket, hinted, ownerOf, waitFor, { deadline, now }))
  )
    return;
  if (session.socket !== socket) return;
  const record = `player/${session.player}`;
  let found = await (asked ?? system.ask(record, { type: "get" }));
  while (!found.ok && (found.retryAfterMs !== undefined || found.code === "TIMEOUT") && now() < deadline) {
    await waitFor(record, found.retryAfterMs ?? 250);
    if (session.socket !== socket) return;
    found = await system.ask(`player/${session.player}`, { type: "get" });
  }
  const lobby = found.ok ? (found.value as { lobby: string | null }).lobby : null;
  // A newer socket has taken over meanwhile: its own lookup is the one that counts.
  if (session.socket !== socket) return;
  if (lobby === null) {
    // In no lobby (a client that was away past its grace may still show one): say so.
    if (found.ok) session.send({ type: "noLobby" });
    return;
  }
  // A matched lobby (recorded when the player created it) is heard through its queue's frames, not the
  // session's lobby requests: nothing to rebind.
  if (lobby.startsWith("mmlobby/")) return;
  // The registry records activity lobbies too (one lobby per player): they are the session's `activity`.
  const activity = lobby.startsWith("activityLobby/");
  // The lobby's pushes reach only sockets on its own node: a member who came back through another
  // gateway (after a failover, say) is sent on to the owner, waiting while it is being taken over.
  for (;;) {
    const owner = await ownerOf(lobby);
    if (session.socket !== socket) return;
    if (owner.kind === "here" || now() >= deadline) break;
    if (owner.kind === "elsewhere") {
      // Not this gateway's lobby: when this socket closes behind the redirect, the lobby must not hear
      // of a drop (it would race the member's arrival at the owner and could cost it its seat).
      if (activity && session.activity === lobby) session.activity = null;
      // An activity lobby that started only sees its players off to their room, which may live on
      // another node than the lobby (a failover took them over apart): a player sent to its room must
      // not be sent back to the lobby (and from there to the room again). It goes on with its transfer.
      if (activity && (await startedActivity(system, lobby))) return;
      if (session.socket !== socket) return;
      session.send({ type: "redirect", url: owner.url, reason: activity ? "activity" : "lobby" });
      return;
    }
    await waitFor(lobby, owner.retryAfterMs);
  }
  if (!activity) {
    session.lobby = lobby;
    return backInLobby(system, session, socket, lobby, { deadline, now });
  }
  // A resumed session told its activity lobby above already; a fresh login finds it here.
  if (session.activity === lobby) return;
  session.activity = lobby;
  await markBack(system, session, socket, lobby, { deadline, now });
}

/**
 * Marks the member back in the private lobby its registry names. When the lobby let the player go (a
 * kick, a grace run out) or closed, and the registry has not heard yet, no frame of that lobby will reach
 * this client again: it is told it is in no lobby, so it does not go on showing that one.
 */
async function backInLobby(
  system: ActorSystem,
  session: Session,
  socket: SessionSocket,
  lobby: string,
  until: Deadline,
): Promise<void> {
  const marked = await markBack(system, session, socket, lobby, until);
  if (marked === null || session.socket !== socket) return;
  const gone = marked.ok
    ? (marked.value as { member?: unknown } | undefined)?.member === false
    : marked.code === "NOT_FOUND";
  if (!gone) return;
  if (session.lobby === lobby) session.lobby = null;
  session.send({ type: "noLobby" });
}

/**
 * Tells `key` the session's player is connected again. Asked, not told: a lobby being restored answers
 * UNAVAILABLE, and the member must still be marked back. Null when a newer socket took over meanwhile.
 */
async function markBack(
  system: ActorSystem,
  session: Session,
  socket: SessionSocket,
  key: string,
  until: Deadline,
): Promise<AskResult | null> {
  const back = { type: "connection", player: session.player, connected: true };
  let marked = await system.ask(key, back);
  while (!marked.ok && marked.retryAfterMs !== undefined && until.now() < until.deadline) {
    await sleep(marked.retryAfterMs);
    if (session.socket !== socket) return null;
    marked = await system.ask(key, back);
  }
  return marked;
}

/** The lobby key a `hello.lobby` names, or null when it is no lobby code. */
function hintedKey(code: string): string | null {
  const normalized = code.trim().toUpperCase();
  return /^[A-Z0-9]{1,32}$/.test(normalized) ? `lobby/${normalized}` : null;
}

/**
 * A resumed session goes straight to the lobby its client named, when that lobby is here or being taken
 * over (then it is taken here), or owned by a node that does not answer (the one the client lost): the
 * player's record is not waited on, so after a failover the member is
 * served as soon as its lobby is. The lobby decides: the session is bound only if the lobby answers that
 * the player is its member. True when bound; false sends the session the usual way, through the
 * player's record (a lobby that lives on another node included: the record, not the client, decides
 * where the player is sent).
 */
async function resumeInHintedLobby(
  system: ActorSystem,
  session: Session,
  socket: SessionSocket,
  key: string,
  ownerOf: (key: string) => Promise<OwnerLocation>,
  waitFor: (key: string, maxMs: number) => Promise<void>,
  until: Deadline,
): Promise<boolean> {
  // Owned elsewhere: perhaps by the node this client just lost, not suspected yet. The lobby is asked
  // there (a read, `view`): if it answers, the record decides where the player goes. Until it does, the
  // owner is looked at again every `probeRetryMs` (and at once when a node is declared dead): once it
  // is, the lobby is taken over here. A probe belongs to the owner it was sent to: one that fails after
  // the claim moved (the lost node's, answered once a survivor took the lobby) says nothing of the new
  // owner, and the wait for a claim change that already happened would run its whole length.
  let probe = null as { url: string; seen: Promise<boolean> } | null;
  let unreachable: string | null = null;
  for (;;) {
    const owner = await ownerOf(key);
    if (session.socket !== socket) return false;
    if (owner.kind === "here") break;
    if (until.now() >= until.deadline) return false;
    if (owner.kind === "waiting") {
      await waitFor(key, owner.retryAfterMs);
      continue;
    }
    if (owner.url === unreachable) {
      // Unreachable (its node is gone, most likely): probed again only after a while, or at once when
      // the claim changes or a node is declared dead; a probe storm would slow the takeover it waits for.
      unreachable = null;
      await waitFor(key, unreachableRetryMs);
      continue;
    }
    if (probe?.url !== owner.url)
      probe = { url: owner.url, seen: system.ask(key, { type: "view" }).then((seen) => seen.ok) };
    const answered = await Promise.race([probe.seen, waitFor(key, probeRetryMs).then(() => null)]);
    if (session.socket !== socket) return false;
    if (answered === true) return false;
    if (answered === false) {
      probe = null;
      unreachable = owner.url;
    }
  }
  // Set before asking: the state the lobby pushes in answer is for this lobby.
  const before = session.lobby;
  session.lobby = key;
  const marked = await markBack(system, session, socket, key, until);
  if (marked === null) return false;
  const member = marked.ok && (marked.value as { member?: unknown } | undefined)?.member === true;
  if (!member && session.lobby === key) session.lobby = before;
  return member;
}

/** True when the activity lobby `key` says it has started; false when it says not, or cannot say now. */
async function startedActivity(system: ActorSystem, key: string): Promise<boolean> {
  const status = await system.ask(key, { type: "status" });
  return status.ok && (status.value as { started?: unknown } | undefined)?.started === true;
}

/** How a fleet node finds a lobby's owner, and waits while one is being taken over. */
export interface LocateFleet {
  readonly ownerOf?: (key: string) => Promise<OwnerLocation>;
  /** Resolves when the claim of `key` changes hands, or after `maxMs`. */
  readonly waitForOwner?: (key: string, maxMs: number) => Promise<void>;
  /** The gateway's clock (wall ms), for the takeover wait's deadline; the system clock by default. */
  readonly now?: () => number;
}

/** When a lookup stops waiting for a takeover, and the clock it is read on. */
interface Deadline {
  readonly deadline: number;
  readonly now: () => number;
}

const wallClock = (): number => Date.now();

/** How often a hinted lobby owned by a node that does not answer is looked at again (a death wakes it). */
const probeRetryMs = 250;

/** How long a hinted lobby whose owner could not be reached waits before it is probed again. */
const unreachableRetryMs = 1_000;

/** How long a resumed member waits for its registry and lobby to be taken over after their node died. */
const maxTakeoverWaitMs = 20_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
