import { describe, expect, it, vi } from "vitest";
import { NatsError } from "nats/lib/nats-base-client/core.js";
import { RequestOne } from "nats/lib/nats-base-client/request.js";
import type { MuxSubscription } from "nats/lib/nats-base-client/muxsubscription.js";
import { skipErrorsOfSettledRequests } from "../../fleet/nats/nats-settled-requests.ts";

/** A request of nats.js's own class on a mux that records what is cancelled. */
function request() {
  const cancelled: unknown[] = [];
  const mux = { cancel: (r: unknown) => cancelled.push(r) } as unknown as MuxSubscription;
  const r = new RequestOne(mux, "foyer.test", { timeout: 60_000 }, false);
  return { r, cancelled };
}

describe("skipErrorsOfSettledRequests", () => {
  it("ends an answered request without making the error nobody can see", async () => {
    skipErrorsOfSettledRequests();
    skipErrorsOfSettledRequests(); // idempotent: one wrapper, not two
    const errors = vi.spyOn(NatsError, "errorForCode");
    try {
      const { r, cancelled } = request();
      const message = { subject: "answer" } as unknown as Parameters<RequestOne["resolver"]>[1];
      r.resolver(null, message);
      await expect(r.deferred).resolves.toBe(message);
      expect(cancelled).toEqual([r]);
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });

  it("still rejects a request cancelled before its answer, as nats.js does", async () => {
    skipErrorsOfSettledRequests();
    const { r, cancelled } = request();
    r.cancel();
    await expect(r.deferred).rejects.toMatchObject({ code: "CANCELLED" });
    expect(cancelled).toEqual([r]);
  });

  it("still passes a failed answer's own error on", async () => {
    skipErrorsOfSettledRequests();
    const { r, cancelled } = request();
    const failure = new NatsError("503", "503");
    r.resolver(failure, {} as Parameters<RequestOne["resolver"]>[1]);
    await expect(r.deferred).rejects.toBe(failure);
    expect(cancelled).toEqual([r]);
  });
});
