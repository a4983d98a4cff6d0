// A Colyseus room equivalent to Foyer's private lobby, as far as the bench goes: created with an invite
// code (the room id), joined by that code (`joinById`), members with a ready flag, a host who passes the
// role on when he leaves, at most 8 members, closed when the last member leaves (Colyseus's autoDispose).
import { Room } from "@colyseus/core";
import { MapSchema, Schema, defineTypes } from "@colyseus/schema";

export class Member extends Schema {
  constructor(id, name) {
    super();
    this.id = id;
    this.name = name;
    this.ready = false;
  }
}
defineTypes(Member, { id: "string", name: "string", ready: "boolean" });

export class LobbyState extends Schema {
  constructor(code) {
    super();
    this.code = code;
    this.host = "";
    this.members = new MapSchema();
  }
}
defineTypes(LobbyState, { code: "string", host: "string", members: { map: Member } });

// Foyer's default invite codes: 6 characters from an alphabet without look-alikes.
const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const liveCodes = new Set();

function newCode() {
  for (;;) {
    let code = "";
    for (let i = 0; i < 6; i++) code += alphabet[Math.floor(Math.random() * alphabet.length)];
    if (!liveCodes.has(code)) return code;
  }
}

export class LobbyRoom extends Room {
  maxClients = 8;

  onCreate() {
    const code = newCode();
    liveCodes.add(code);
    this.roomId = code;
    this.setState(new LobbyState(code));
    // Foyer pushes every change to every member at once; Colyseus batches patches every 50 ms by
    // default. Send each change's patch at once instead, so both push a change before acking it.
    this.setPatchRate(null);
    this.onMessage("ready", (client, message) => {
      const member = this.state.members.get(client.sessionId);
      if (member) member.ready = Boolean(message?.ready);
      this.broadcastPatch();
      client.send("ok", message?.id ?? null);
    });
  }

  onJoin(client, options) {
    const name = typeof options?.name === "string" ? options.name : client.sessionId;
    this.state.members.set(client.sessionId, new Member(client.sessionId, name));
    if (this.state.host === "") this.state.host = client.sessionId;
    this.broadcastPatch();
  }

  onLeave(client) {
    this.state.members.delete(client.sessionId);
    if (this.state.host === client.sessionId) {
      const next = this.state.members.keys().next();
      this.state.host = next.done ? "" : next.value;
    }
    this.broadcastPatch();
  }

  onDispose() {
    liveCodes.delete(this.state.code);
  }
}
