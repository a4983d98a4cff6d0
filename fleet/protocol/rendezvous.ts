/**
 * Rendezvous (highest random weight) hashing: every node scores every key, the highest score claims it.
 * Survivors of a node death agree on one claimant per key without talking, and a key moves only when its
 * own claimant changes. FNV-1a, 32 bits: deterministic everywhere, which the simulation needs.
 */
export function rendezvousOwner(key: string, nodes: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const node of nodes) {
    const score = fnv1a(`${key}\u0000${node}`);
    if (score > bestScore || (score === bestScore && best !== undefined && node < best)) {
      best = node;
      bestScore = score;
    }
  }
  return best;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  // A final avalanche, so keys that differ in their last characters spread too.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return hash >>> 0;
}
