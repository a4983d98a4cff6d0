import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { z } from "zod";
import { buildBrowserBundle, buildEsm, bundledSources, repoRoot } from "./sdk-bundles.ts";
import { writeSdkTypes } from "./sdk-types.ts";

const run = promisify(execFile);

/** What `npm run sdk:pack` made. */
export interface SdkPack {
  /** The `npm pack` tarball (`foyer-client-<version>.tgz`). */
  readonly tarball: string;
  /** The repository files whose code is in the bundles. */
  readonly bundled: readonly string[];
  /** The repository files whose declarations are in `types/`. */
  readonly declared: readonly string[];
}

/** The fields of a package.json the build reads; the rest is kept as written. */
const manifestSchema = z.looseObject({
  version: z.string(),
  dependencies: z.record(z.string(), z.string()),
  peerDependencies: z.record(z.string(), z.string()).optional(),
});
type Manifest = z.output<typeof manifestSchema>;

async function readManifest(path: string): Promise<Manifest> {
  return manifestSchema.parse(JSON.parse(await readFile(path, "utf8")));
}

/**
 * The package's manifest, versioned as the repository, after checking that its dependencies are the
 * repository's own (exact, as the root pins them; a peer as `^` of the root's), so the package runs on
 * what the tests ran.
 */
async function sdkManifest(): Promise<Manifest> {
  const root = await readManifest(join(repoRoot, "package.json"));
  const sdk = await readManifest(join(repoRoot, "sdk/package.json"));
  const wanted = [
    ...Object.entries(sdk.dependencies).map(([name, v]) => [name, v, root.dependencies[name]] as const),
    ...Object.entries(sdk.peerDependencies ?? {}).map(([name, v]) => [
      name,
      v,
      `^${root.dependencies[name]}`,
    ]),
  ];
  for (const [name, version, rootVersion] of wanted) {
    if (version !== rootVersion)
      throw new Error(`sdk/package.json: ${name} ${version}, the root has ${rootVersion}`);
  }
  return { ...sdk, version: root.version };
}

/** Builds the package into a scratch directory and packs it into `outDir`; the scratch is removed. */
export async function packSdk(outDir: string): Promise<SdkPack> {
  const scratch = await mkdtemp(join(tmpdir(), "foyer-sdk-"));
  try {
    const stage = join(scratch, "package");
    const manifest = await sdkManifest();
    const external = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies ?? {})];
    const esm = await buildEsm(join(stage, "dist"), external);
    const browser = await buildBrowserBundle(join(stage, "dist/foyer-client.browser.js"));
    const declared = await writeSdkTypes(join(stage, "types"), scratch);
    await writeFile(join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    await copyFile(join(repoRoot, "sdk/README.md"), join(stage, "README.md"));
    await mkdir(outDir, { recursive: true });
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", resolve(outDir)], {
      cwd: stage,
    });
    const [packed] = JSON.parse(stdout) as { filename: string }[];
    if (!packed) throw new Error("npm pack wrote no tarball");
    const bundled = [...new Set([...bundledSources(esm), ...bundledSources(browser)])].sort();
    return { tarball: join(resolve(outDir), packed.filename), bundled, declared };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
