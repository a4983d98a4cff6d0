#!/usr/bin/env node
// The `foyer` command: runs the TypeScript CLI through tsx's loader, so there is no build step.
import { register } from "tsx/esm/api";

register();
await import("../cli.ts");
