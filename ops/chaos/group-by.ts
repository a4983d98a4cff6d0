/** The items by their key, each group in the items' order (Node 20 has no `Map.groupBy`). */
export function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = []));
    group.push(item);
  }
  return groups;
}
