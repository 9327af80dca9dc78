// Builds the console into the Python package (layers/core/agent_memory/console), which the
// embedded server and the API function serve: index.html at `/`, the rest under `/console/`. The output is committed so `make serve`
// needs no Node; `make console-check` builds it again elsewhere and compares.
//
//   node build.mjs [--outdir DIR]

import { build } from "esbuild";
import { copyFile, mkdir, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const at = process.argv.indexOf("--outdir");
const outdir = resolve(at > 0 ? process.argv[at + 1] : join(here, "../layers/core/agent_memory/console"));

await rm(outdir, { recursive: true, force: true });
await mkdir(outdir, { recursive: true });
await build({
  entryPoints: [join(here, "src/main.js")],
  bundle: true,
  minify: true,
  format: "esm",
  target: ["chrome110", "firefox115", "safari16"],
  outfile: join(outdir, "app.js"),
  legalComments: "eof",
  logLevel: "warning",
});
await copyFile(join(here, "src/index.html"), join(outdir, "index.html"));
await copyFile(join(here, "src/style.css"), join(outdir, "style.css"));
console.log(`console built into ${outdir}`);
