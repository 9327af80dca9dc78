// The TypeScript client's two figures: the size of its ESM build as a bundler ships it
// (minified, then gzip), and what a call costs on top of raw fetch (p50 over 1,000 GETs of
// one agent against an embedded server, the client's calls and raw fetches interleaved in
// blocks so both see the same server and machine).
//
//   cd clients/typescript && npm ci && npm run build && cd ../.. && node benchmarks/ts_client.mjs
//
// The server is $AGENT_MEMORY_BIN, else .venv/bin/agent-memory (see clients/typescript/test/server.mjs).
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "../clients/typescript");
const require = createRequire(join(pkg, "package.json"));
const { build } = require("esbuild");
const { Client } = await import(pathToFileURL(join(pkg, "dist/esm/index.js")).href);
const { startServer } = await import(pathToFileURL(join(pkg, "test/server.mjs")).href);

const CALLS = 1000;
const BLOCK = 50;

async function bundleSize() {
  const result = await build({
    entryPoints: [join(pkg, "dist/esm/index.js")],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "neutral",
    write: false,
  });
  const code = result.outputFiles[0].contents;
  return { minified: code.length, gzip: gzipSync(code, { level: 9 }).length };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const summary = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99) };
};
const ms = (value) => Number(value.toFixed(3));

async function overhead() {
  const server = await startServer();
  try {
    const client = new Client({ baseUrl: server.url, token: server.token });
    const agent = "bench/ts-client";
    await client.agents.put(agent, { harness: {} });
    const url = `${server.url}/v1/agents/${agent}`;
    const headers = { Accept: "application/json", Authorization: `Bearer ${server.token}` };
    // What the client does with an answer, done by hand: status, text, JSON.
    const raw = async () => {
      const response = await fetch(url, { method: "GET", headers });
      if (!response.ok) throw new Error(`status ${response.status}`);
      return JSON.parse(await response.text());
    };
    const viaClient = () => client.agents.get(agent);
    for (let i = 0; i < 100; i++) {
      await raw();
      await viaClient();
    }
    const times = { raw: [], client: [] };
    for (let done = 0; done < CALLS; done += BLOCK) {
      for (const [name, call] of done % (2 * BLOCK) ? [["client", viaClient], ["raw", raw]] : [["raw", raw], ["client", viaClient]]) {
        for (let i = 0; i < BLOCK; i++) {
          const started = performance.now();
          await call();
          times[name].push(performance.now() - started);
        }
      }
    }
    const rawStats = summary(times.raw);
    const clientStats = summary(times.client);
    return {
      calls: CALLS,
      rawFetchMs: Object.fromEntries(Object.entries(rawStats).map(([k, v]) => [k, ms(v)])),
      clientMs: Object.fromEntries(Object.entries(clientStats).map(([k, v]) => [k, ms(v)])),
      overheadP50Ms: ms(clientStats.p50 - rawStats.p50),
    };
  } finally {
    await server.stop();
  }
}

const report = { node: process.version, esmBundleBytes: await bundleSize(), get: await overhead() };
console.log(JSON.stringify(report, null, 2));
