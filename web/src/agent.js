// An agent's page: its tabs, the live event stream that tells them to look again, and the
// control that shows the agent as it stood at a past instant (read-only).

import { useEffect, useState } from "preact/hooks";
import { agentPath, get } from "./api.js";
import { AsOfControl, checkAsOf, past, PastBanner } from "./asof.js";
import { subscribe } from "./events.js";
import { html } from "./html.js";
import { MemoryTab } from "./memory.js";
import { PendingTab } from "./pending.js";
import { RecordsTab } from "./records.js";
import { SessionsTab } from "./sessions.js";
import { SettingsTab } from "./settings.js";
import { href, navigate, useLoad, when } from "./util.js";
import { Loading, Problem } from "./widgets.js";

const TABS = [
  ["memory", "Memory", MemoryTab],
  ["records", "Records", RecordsTab],
  ["pending", "Pending", PendingTab],
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

export function AgentPage({ agentId, tab, rest, asOf = "" }) {
  // A route's asOf that names no instant is said on the page and never sent.
  const badTime = checkAsOf(asOf);
  const agent = useLoad(
    () => (badTime ? Promise.resolve(null) : get(agentPath(agentId), past(asOf))),
    [agentId, asOf],
  );
  const notYet = asOf && agent.error && agent.error.status === 404;
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
  // The same tab and item, at another instant ("" is now).
  const viewAt = (iso) => navigate(`/agents/${agentId}/-/${current[0]}${rest ? "/" + rest : ""}`, iso);
  return html`<main id="main" class="page" tabindex="-1">
    <div class="page-head">
      <div>
        <p class="crumbs"><a href=${href("/agents")}>Agents</a> /</p>
        <h1 class="agent-id">${agentId}</h1>
        ${agent.data &&
        html`<p class="muted">manifest v${agent.data.manifestVersion}${asOf ? " then" : ""}${agent.data.forkedFrom
          ? ` · fork of ${agent.data.forkedFrom}`
          : ""}</p>`}
      </div>
      <p class=${"stream " + stream} role="status" aria-live="polite">
        <span class="dot" aria-hidden="true"></span>${STREAM_TEXT[stream]}
        ${latest && html`<span class="latest"> · last: ${latest}</span>`}
      </p>
    </div>
    <${AsOfControl} asOf=${badTime ? "" : asOf} onChange=${viewAt} />
    ${asOf && html`<${PastBanner} asOf=${asOf} onNow=${() => viewAt("")} />`}
    <${Problem} error=${badTime || (notYet ? null : agent.error)} />
    ${notYet &&
    html`<p class="notice" role="status">This agent did not exist yet at ${when(asOf)}: its first manifest was saved later.</p>`}
    ${asOf && !badTime && current[0] === "sessions" &&
    html`<p class="notice">Sessions and turns are shown as they are now: a past view covers memories, records and the manifest.</p>`}
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
          asOf=${asOf} onAgentChanged=${agent.reload} onChanged=${() => setChanged((n) => n + 1)} />`}
  </main>`;
}
