// The package's builds: dist/esm, ES modules and their .d.ts files, by tsc; dist/cjs, one
// CommonJS file by esbuild (marked by its own package.json) beside the same .d.ts files. The
// generated schema.d.ts, which tsc does not copy, travels with both.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(pkg, "dist");

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [join(pkg, "node_modules/typescript/bin/tsc"), "-p", join(pkg, "tsconfig.json")], {
  stdio: "inherit",
});
copyFileSync(join(pkg, "src/schema.d.ts"), join(dist, "esm/schema.d.ts"));

await build({
  entryPoints: [join(pkg, "src/index.ts")],
  outfile: join(dist, "cjs/index.js"),
  bundle: true,
  format: "cjs",
  platform: "neutral",
  target: "es2022",
  logLevel: "warning",
});
for (const name of readdirSync(join(dist, "esm")).filter((n) => n.endsWith(".d.ts"))) {
  copyFileSync(join(dist, "esm", name), join(dist, "cjs", name));
}
mkdirSync(join(dist, "cjs"), { recursive: true });
writeFileSync(join(dist, "cjs/package.json"), '{ "type": "commonjs" }\n');
console.log("built dist/esm and dist/cjs");
