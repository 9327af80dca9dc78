// The Agents page: every agent of the tenant, a filter, and a form that creates (or saves a new
// version of) an agent from a manifest.

import { useState } from "preact/hooks";
import { agentPath, getAll, request } from "./api.js";
import { html } from "./html.js";
import { ago, href, navigate, pretty, useLoad, when } from "./util.js";
import { Empty, Loading, Problem } from "./widgets.js";

const EXAMPLE = {
  harness: {
    memory: {
      enabled: true,
      scope: { read: ["session", "agent"], write: ["session", "agent"] },
      tools: ["add_memory", "read_memory", "delete_memory"],
    },
    history: { index: "messages_and_tools" },
  },
};

export function Agents() {
  const [filter, setFilter] = useState("");
  const agents = useLoad(() => getAll("/v1/agents", "agents"), []);
  const needle = filter.trim().toLowerCase();
  const shown = (agents.data || []).filter((a) => a.id.toLowerCase().includes(needle));
  return html`<main id="main" class="page">
    <div class="page-head">
      <h1>Agents</h1>
      <div class="field inline">
        <label for="agent-filter">Filter agents</label>
        <input id="agent-filter" type="search" placeholder="teams/web" value=${filter}
          onInput=${(e) => setFilter(e.target.value)} />
      </div>
    </div>
    <${Problem} error=${agents.error} />
    ${agents.loading && !agents.data
      ? html`<${Loading} label="Loading agents" />`
      : html`<div class="table-wrap">
          <table aria-label="Agents">
            <thead>
              <tr><th>Agent</th><th>Manifest</th><th class="wide">Created</th><th>Updated</th></tr>
            </thead>
            <tbody>
              ${shown.map(
                (agent) => html`<tr key=${agent.id}>
                  <td><a href=${href(`/agents/${agent.id}/-/memory`)}>${agent.id}</a>
                    ${agent.forkedFrom && html` <span class="chip">fork of ${agent.forkedFrom}</span>`}</td>
                  <td>v${agent.manifestVersion}</td>
                  <td class="wide" title=${when(agent.createdAt)}>${ago(agent.createdAt)}</td>
                  <td title=${when(agent.updatedAt)}>${ago(agent.updatedAt)}</td>
                </tr>`,
              )}
            </tbody>
          </table>
          ${agents.data && !shown.length &&
          html`<${Empty}>${needle ? "No agent matches the filter." : "No agents yet: create one below."}</${Empty}>`}
        </div>`}
    <${CreateAgent} onCreated=${(id) => navigate(`/agents/${id}/-/memory`)} />
  </main>`;
}

function CreateAgent({ onCreated }) {
  const [id, setId] = useState("");
  const [manifest, setManifest] = useState(pretty(EXAMPLE));
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event) => {
    event.preventDefault();
    setError(null);
    let document;
    try {
      document = JSON.parse(manifest);
    } catch (problem) {
      setError({ code: "invalid_json", message: `The manifest is not JSON: ${problem.message}` });
      return;
    }
    setBusy(true);
    try {
      await request("PUT", agentPath(id.trim()), { body: document });
      onCreated(id.trim());
    } catch (problem) {
      setError(problem);
    } finally {
      setBusy(false);
    }
  };
  return html`<section class="card" aria-labelledby="create-title">
    <h2 id="create-title">Create an agent from a manifest</h2>
    <form onSubmit=${submit}>
      <div class="field">
        <label for="new-agent-id">Agent id</label>
        <input id="new-agent-id" required placeholder="teams/web/releases" value=${id}
          aria-describedby="new-agent-id-help" onInput=${(e) => setId(e.target.value)} />
        <small id="new-agent-id-help">Path-like: segments of letters, digits, <code>. _ ~ -</code>, separated by <code>/</code>. An existing id gets a new manifest version.</small>
      </div>
      <div class="field">
        <label for="new-agent-manifest">Manifest (JSON)</label>
        <textarea id="new-agent-manifest" rows="12" spellcheck="false" class="code" value=${manifest}
          onInput=${(e) => setManifest(e.target.value)}></textarea>
      </div>
      <${Problem} error=${error} />
      <button type="submit" class="primary" disabled=${busy || !id.trim()}>Save agent</button>
    </form>
  </section>`;
}
