import { afterEach, describe, expect, it } from "vitest";
import { BusError, isBusClosed, isBusTimeout, isNoResponders } from "../../fleet/index.ts";
import type { Bus, BusMessage } from "../../fleet/index.ts";
import { bytes, text, waitFor } from "./wait-for.ts";

/**
 * The rules every Bus must keep (fleet/bus.ts). `makeBus` returns at least three connections to one
 * fresh medium, so delivery across connections is what is tested. Handler exceptions must go to a sink
 * that does not fail the run: one test has a handler that throws.
 */
export function describeBusContract(name: string, makeBus: () => Promise<Bus[]>): void {
  describe(`Bus contract: ${name}`, () => {
    const opened: Bus[] = [];

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((bus) => bus.close()));
    });

    async function connect(): Promise<[Bus, Bus, Bus]> {
      const buses = await makeBus();
      opened.push(...buses);
      const [a, b, c] = buses;
      if (a === undefined || b === undefined || c === undefined)
        throw new Error("makeBus must give three connections");
      return [a, b, c];
    }

    /** Subscriptions reach the medium before anything is published to them. */
    async function ready(...buses: Bus[]): Promise<void> {
      await Promise.all(buses.map((bus) => bus.flush()));
    }

    function collect(bus: Bus, subject: string, queue?: string): string[] {
      const seen: string[] = [];
      const handler = (msg: BusMessage): void => {
        seen.push(`${msg.subject}:${text(msg.data)}`);
      };
      bus.subscribe(subject, handler, queue === undefined ? {} : { queue });
      return seen;
    }

    it("delivers a message published on one connection to a subscriber on another", async () => {
      const [pub, sub] = await connect();
      const seen = collect(sub, "lobby.ABC123.events");
      await ready(sub);
      pub.publish("lobby.ABC123.events", bytes("hello"));
      await waitFor("the message", () => seen.length === 1);
      expect(seen).toEqual(["lobby.ABC123.events:hello"]);
    });

    it("never calls a handler inside publish", async () => {
      const [bus] = await connect();
      const seen = collect(bus, "sync.check");
      await ready(bus);
      bus.publish("sync.check", bytes("1"));
      expect(seen).toEqual([]);
      await waitFor("the message", () => seen.length === 1);
    });

    it("* matches exactly one token", async () => {
      const [pub, sub] = await connect();
      const seen = collect(sub, "node.*.load");
      await ready(sub);
      for (const subject of [
        "node.n1.load",
        "node.load",
        "node.n1.x.load",
        "node.n2.load.x",
        "node.n2.load",
      ]) {
        pub.publish(subject, bytes("x"));
      }
      await waitFor("the matching messages", () => seen.length >= 2);
      await pub.flush();
      pub.publish("node.end.load", bytes("end"));
      await waitFor("the end marker", () => seen.at(-1) === "node.end.load:end");
      expect(seen).toEqual(["node.n1.load:x", "node.n2.load:x", "node.end.load:end"]);
    });

    it("> matches one or more trailing tokens", async () => {
      const [pub, sub] = await connect();
      const seen = collect(sub, "gw.n1.>");
      await ready(sub);
      for (const subject of ["gw.n1", "gw.n1.a", "gw.n2.a", "gw.n1.a.b.c", "gw"])
        pub.publish(subject, bytes("x"));
      pub.publish("gw.n1.end", bytes("end"));
      await waitFor("the end marker", () => seen.at(-1) === "gw.n1.end:end");
      expect(seen).toEqual(["gw.n1.a:x", "gw.n1.a.b.c:x", "gw.n1.end:end"]);
    });

    it("a queue group delivers each message to one member; every group and plain subscriber gets it", async () => {
      const [pub, b, c] = await connect();
      const members = [
        collect(b, "work.item", "workers"),
        collect(c, "work.item", "workers"),
        collect(c, "work.*", "workers"),
      ];
      const others = collect(b, "work.item", "auditors");
      const plain = collect(c, "work.item");
      await ready(b, c);
      for (let i = 0; i < 30; i += 1) pub.publish("work.item", bytes(String(i)));
      const total = (): number => members.reduce((sum, seen) => sum + seen.length, 0);
      await waitFor("30 deliveries each", () => total() >= 30 && others.length >= 30 && plain.length >= 30);
      await ready(pub, b, c);
      const expected = Array.from({ length: 30 }, (_, i) => `work.item:${i}`);
      expect(members.flat().sort()).toEqual([...expected].sort());
      expect(others).toEqual(expected);
      expect(plain).toEqual(expected);
    });

    it("delivers in publish order per subscription", async () => {
      const [pub, sub] = await connect();
      const seen = collect(sub, "order.>");
      await ready(sub);
      const expected = Array.from({ length: 200 }, (_, i) => `order.${i % 3}:${i}`);
      for (let i = 0; i < 200; i += 1) pub.publish(`order.${i % 3}`, bytes(String(i)));
      await waitFor("200 messages", () => seen.length === 200);
      expect(seen).toEqual(expected);
    });

    it("request resolves with the first answer from another connection", async () => {
      const [client, server] = await connect();
      server.subscribe("svc.echo", (msg) => {
        msg.respond(bytes(`echo ${text(msg.data)}`));
      });
      await ready(server);
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          client.request("svc.echo", bytes(String(i)), { timeoutMs: 2_000 }),
        ),
      );
      expect(answers.map(text)).toEqual(Array.from({ length: 10 }, (_, i) => `echo ${i}`));
    });

    it("request to a subject nobody subscribes to rejects with no-responders", async () => {
      const [client] = await connect();
      await expect(client.request("svc.nobody", bytes("?"), { timeoutMs: 2_000 })).rejects.toSatisfy(
        isNoResponders,
      );
    });

    it("request not answered in time rejects with timeout", async () => {
      const [client, server] = await connect();
      const seen = collect(server, "svc.silent");
      await ready(server);
      const started = Date.now();
      await expect(client.request("svc.silent", bytes("?"), { timeoutMs: 50 })).rejects.toSatisfy(
        isBusTimeout,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(40);
      expect(seen).toEqual(["svc.silent:?"]);
    });

    it("respond returns false for a message with no reply subject", async () => {
      const [pub, sub] = await connect();
      const results: (boolean | string | undefined)[] = [];
      sub.subscribe("plain.msg", (msg) => {
        results.push(msg.reply, msg.respond(bytes("nobody listens")));
      });
      await ready(sub);
      pub.publish("plain.msg", bytes("x"));
      await waitFor("the message", () => results.length === 2);
      expect(results).toEqual([undefined, false]);
    });

    it("unsubscribe stops delivery, also of a burst already sent", async () => {
      const [pub, sub] = await connect();
      const seen: string[] = [];
      const subscription = sub.subscribe("burst.x", (msg) => {
        seen.push(text(msg.data));
        subscription.unsubscribe();
      });
      const marker = collect(sub, "burst.marker");
      await ready(sub);
      for (let i = 0; i < 5; i += 1) pub.publish("burst.x", bytes(String(i)));
      pub.publish("burst.marker", bytes("end"));
      await waitFor("the marker", () => marker.length === 1);
      pub.publish("burst.x", bytes("late"));
      pub.publish("burst.marker", bytes("end"));
      await waitFor("the second marker", () => marker.length === 2);
      expect(seen).toEqual(["0"]);
      expect(subscription.subject).toBe("burst.x");
    });

    it("a handler that throws does not stop later deliveries", async () => {
      const [pub, sub] = await connect();
      const seen: string[] = [];
      sub.subscribe("throws.x", (msg) => {
        seen.push(text(msg.data));
        if (seen.length === 1) throw new Error("handler bug (expected by the test)");
      });
      await ready(sub);
      pub.publish("throws.x", bytes("1"));
      pub.publish("throws.x", bytes("2"));
      await waitFor("both messages", () => seen.length === 2);
      expect(seen).toEqual(["1", "2"]);
    });

    it("copies data: neither the publisher nor another subscriber can change what one receives", async () => {
      const [pub, sub] = await connect();
      const first: Uint8Array[] = [];
      const second: Uint8Array[] = [];
      sub.subscribe("copy.x", (msg) => {
        first.push(msg.data);
        msg.data.fill(0);
      });
      sub.subscribe("copy.x", (msg) => second.push(msg.data));
      await ready(sub);
      const data = bytes("original");
      pub.publish("copy.x", data);
      data.fill(0);
      await waitFor("both deliveries", () => first.length === 1 && second.length === 1);
      expect(text(second[0]!)).toBe("original");
    });

    it("refuses bad subjects with TypeError", async () => {
      const [bus] = await connect();
      for (const subject of ["", "a..b", "a.*", "a.>", ".a", "a b"]) {
        expect(() => {
          bus.publish(subject, bytes("x"));
        }, subject).toThrow(TypeError);
      }
      for (const filter of ["", "a..b", "a.>.b", "a b"]) {
        expect(() => bus.subscribe(filter, () => undefined), filter).toThrow(TypeError);
      }
      await expect(bus.request("a.*", bytes("x"), { timeoutMs: 100 })).rejects.toBeInstanceOf(TypeError);
    });

    it("after close: publish throws closed and a waiting request rejects with closed", async () => {
      const [client, server] = await connect();
      const seen = collect(server, "svc.slow");
      await ready(server);
      const waiting = client.request("svc.slow", bytes("?"), { timeoutMs: 5_000 });
      await waitFor("the request to arrive", () => seen.length === 1);
      await client.close();
      await expect(waiting).rejects.toSatisfy(isBusClosed);
      expect(() => {
        client.publish("svc.slow", bytes("x"));
      }).toThrow(BusError);
      await expect(client.request("svc.slow", bytes("x"), { timeoutMs: 100 })).rejects.toSatisfy(isBusClosed);
    });
  });
}
