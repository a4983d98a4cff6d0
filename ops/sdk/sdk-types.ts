import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, normalize } from "node:path";
import { promisify } from "node:util";
import { repoRoot, sdkEntries } from "./sdk-bundles.ts";

const run = promisify(execFile);

/** The relative module specifiers of a declaration file (`from "./x.ts"`, `import("./x.ts")`). */
const relativeSpecifier = /((?:from|import\()\s*")(\.{1,2}\/[^"]+)\.ts(")/g;

/** `tsc --emitDeclarationOnly` over the SDK's entries, with its own tsconfig, into `outDir`. */
async function emitDeclarations(outDir: string): Promise<void> {
  const tsc = join(repoRoot, "node_modules/typescript/bin/tsc");
  await run(process.execPath, [tsc, "-p", join(repoRoot, "sdk/tsconfig.types.json"), "--outDir", outDir], {
    cwd: repoRoot,
  });
}

/** The declaration files the entries' declarations reach through their imports, entries first. */
async function reachedDeclarations(emitted: string): Promise<string[]> {
  const entries = Object.values(sdkEntries).map((e) => e.replace(/\.ts$/, ".d.ts"));
  const seen = new Set<string>();
  const queue = [...entries];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = await readFile(join(emitted, file), "utf8");
    for (const match of text.matchAll(relativeSpecifier)) {
      queue.push(normalize(join(dirname(file), `${match[2]}.d.ts`)));
    }
  }
  return [...seen];
}

/**
 * Writes the SDK's `.d.ts` files under `typesDir`, laid out as in the repository, and returns their
 * paths. Only the files the public entries reach are kept: tsc declares every module of the program,
 * and the program holds the server modules the protocol's imports pass through. The specifiers become
 * `.js`, the form a consumer's TypeScript resolves to the `.d.ts` beside it.
 */
export async function writeSdkTypes(typesDir: string, scratchDir: string): Promise<string[]> {
  const emitted = join(scratchDir, "emitted");
  await emitDeclarations(emitted);
  const files = await reachedDeclarations(emitted);
  for (const file of files) {
    const target = join(typesDir, file);
    await mkdir(dirname(target), { recursive: true });
    const text = await readFile(join(emitted, file), "utf8");
    await writeFile(target, text.replace(relativeSpecifier, "$1$2.js$3"));
  }
  return files.sort();
}
