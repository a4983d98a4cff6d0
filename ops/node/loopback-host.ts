import { isIP } from "node:net";

/** True for a listen address only this machine can reach (`127.x.x.x`, `::1`, `localhost`). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost" || bare.endsWith(".localhost")) return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (bare === "::1") return true;
  return bare.startsWith("::ffff:127.");
}
