// The client's types come from the OpenAPI document the service serves. This writes
// openapi.json (from the app, through the project's Python) and src/schema.d.ts (generated
// from it by openapi-typescript). With --check it writes nothing and fails when either
// committed file differs from what the code generates now: a route or model change the client
// does not follow fails `make test`.
//
// The Python is $AGENT_MEMORY_PYTHON, else the repository's .venv, else python3 on the PATH.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, "..");
const repo = resolve(pkg, "../..");
const check = process.argv.includes("--check");

function python() {
  if (process.env.AGENT_MEMORY_PYTHON) return process.env.AGENT_MEMORY_PYTHON;
  const venv = join(repo, ".venv/bin/python");
  return existsSync(venv) ? venv : "python3";
}

const BANNER = `// Generated from openapi.json by openapi-typescript (npm run types): do not edit.\n\n`;

const document = execFileSync(python(), [join(here, "openapi.py")], {
  encoding: "utf8",
  maxBuffer: 64 * 1024 * 1024,
});
const ast = await openapiTS(JSON.parse(document), {
  exportType: true,
  alphabetize: true,
  // A field with a default is optional: the service fills it in when a request leaves it out.
  defaultNonNullable: false,
});
const schema = BANNER + astToString(ast);

const outputs = [
  ["openapi.json", document],
  ["src/schema.d.ts", schema],
];
let drifted = false;
for (const [name, text] of outputs) {
  const path = join(pkg, name);
  const committed = existsSync(path) ? readFileSync(path, "utf8") : null;
  if (committed === text) continue;
  if (check) {
    drifted = true;
    console.error(`${name} differs from what the service's OpenAPI document generates now`);
  } else {
    writeFileSync(path, text);
    console.log(`wrote ${name}`);
  }
}
if (drifted) {
  console.error("run `npm run types` in clients/typescript and commit openapi.json and src/schema.d.ts");
  process.exit(1);
}
