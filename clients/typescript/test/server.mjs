// An embedded server for the suite: `agent-memory serve` on a free port over a scratch data
// directory, as the Python end-to-end tests start one. The command is $AGENT_MEMORY_BIN, else
// the repository's .venv/bin/agent-memory, else agent-memory on the PATH.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

function command() {
  if (process.env.AGENT_MEMORY_BIN) return process.env.AGENT_MEMORY_BIN;
  const venv = join(repo, ".venv/bin/agent-memory");
  return existsSync(venv) ? venv : "agent-memory";
}

export function freePort() {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });
}

/** Start a server; `{ url, token, stop() }`. What it printed is shown when it fails to start. */
export async function startServer() {
  const root = mkdtempSync(join(tmpdir(), "agent-memory-ts-"));
  const dataDir = join(root, "data");
  const port = await freePort();
  const log = join(root, "server.log");
  const child = spawn(command(), ["serve", "--port", String(port), "--data-dir", dataDir], {
    stdio: ["ignore", openSync(log, "a"), openSync(log, "a")],
    env: process.env,
  });
  let exited = null;
  child.once("exit", (code) => (exited = code));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited !== null) throw new Error(`server exited (${exited}): ${readFileSync(log, "utf8")}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not start in 30 s: ${readFileSync(log, "utf8")}`);
    }
    try {
      const answer = await fetch(`${url}/v1/openapi.json`);
      await answer.arrayBuffer();
      if (answer.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const token = readFileSync(join(dataDir, "token"), "utf8").trim();
  return {
    url,
    token,
    dataDir,
    async stop() {
      if (exited === null) {
        const gone = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await gone;
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}
