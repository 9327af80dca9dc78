// An agent's page: its tabs, and the live event stream that tells them to look again.

import { useEffect, useState } from "preact/hooks";
import { agentPath, get } from "./api.js";
import { subscribe } from "./events.js";
import { html } from "./html.js";
import { MemoryTab } from "./memory.js";
import { RecordsTab } from "./records.js";
import { SessionsTab } from "./sessions.js";
import { SettingsTab } from "./settings.js";
import { href, useLoad } from "./util.js";
import { Loading, Problem } from "./widgets.js";

const TABS = [
  ["memory", "Memory", MemoryTab],
  ["records", "Records", RecordsTab],
  ["sessions", "Sessions", SessionsTab],
  ["settings", "Settings", SettingsTab],
];

const STREAM_TEXT = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting",
  polling: "Updates every 15 s",
  off: "No live updates",
};

export function AgentPage({ agentId, tab, rest }) {
  const agent = useLoad(() => get(agentPath(agentId)), [agentId]);
  // Every event bumps `changed`: each tab loads again what it shows, so a change made
  // elsewhere (an agent's turn, another console) appears without a reload.
  const [changed, setChanged] = useState(0);
  const [stream, setStream] = useState("connecting");
  const [latest, setLatest] = useState("");
  useEffect(
    () =>
      subscribe(
        agentId,
        (event) => {
          setChanged((n) => n + 1);
          if (event.type === "poll") return; // a look again, not a change we were told of
          const count = (event.changes || []).length;
          const what = (event.changes || [])
            .map((c) => c.path || c.id)
            .slice(0, 3)
            .join(", ");
          setLatest(`${count} change${count === 1 ? "" : "s"}${what ? ": " + what : ""}`);
        },
        setStream,
      ),
    [agentId],
  );
  const current = TABS.find(([name]) => name === tab) || TABS[0];
  const Tab = current[2];
  return html`<main id="main" class="page" tabindex="-1">
    <div class="page-head">
      <div>
        <p class="crumbs"><a href=${href("/agents")}>Agents</a> /</p>
        <h1 class="agent-id">${agentId}</h1>
        ${agent.data &&
        html`<p class="muted">manifest v${agent.data.manifestVersion}${agent.data.forkedFrom
          ? ` · fork of ${agent.data.forkedFrom}`
          : ""}</p>`}
      </div>
      <p class=${"stream " + stream} role="status" aria-live="polite">
        <span class="dot" aria-hidden="true"></span>${STREAM_TEXT[stream]}
        ${latest && html`<span class="latest"> · last: ${latest}</span>`}
      </p>
    </div>
    <${Problem} error=${agent.error} />
    <nav class="tabs" aria-label="Agent">
      ${TABS.map(
        ([name, label]) =>
          html`<a href=${href(`/agents/${agentId}/-/${name}`)}
            aria-current=${name === current[0] ? "page" : undefined}>${label}</a>`,
      )}
    </nav>
    ${agent.loading && !agent.data
      ? html`<${Loading} label="Loading the agent" />`
      : agent.data &&
        html`<${Tab} agent=${agent.data} agentId=${agentId} rest=${rest} changed=${changed}
          onAgentChanged=${agent.reload} />`}
  </main>`;
}
