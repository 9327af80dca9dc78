// The Settings tab: the agent's manifest, every saved version, and a diff between any two; in a
// past view, the manifest then and the versions saved by then.

import { useEffect, useState } from "preact/hooks";
import { agentPath, getAll } from "./api.js";
import { byThen } from "./asof.js";
import { html } from "./html.js";
import { ago, pretty, useLoad, when } from "./util.js";
import { Diff, Loading, Problem, VersionPair } from "./widgets.js";

export function SettingsTab({ agent, agentId, changed, asOf }) {
  const versions = useLoad(
    () =>
      getAll(agentPath(agentId, "manifest-versions"), "versions").then((all) =>
        all.filter((v) => byThen(v.createdAt, asOf)),
      ),
    [agentId, agent.manifestVersion, changed, asOf],
  );
  const list = versions.data || [];
  const [from, setFrom] = useState(0);
  const [to, setTo] = useState(0);
  useEffect(() => {
    if (list.length) {
      setTo(list[0].version);
      setFrom((list[1] || list[0]).version);
    }
  }, [versions.data]);
  const text = (n) => pretty((list.find((v) => v.version === Number(n)) || {}).manifest || {});
  return html`<div class="settings">
    <section class="card" aria-labelledby="manifest-title">
      <h2 id="manifest-title">Manifest v${agent.manifestVersion}</h2>
      <p class="muted">Defaults filled in. Saved ${when(agent.updatedAt)}.</p>
      <pre class="raw" aria-label="Current manifest">${pretty(agent.manifest)}</pre>
    </section>
    <section class="card" aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <${Problem} error=${versions.error} />
      ${versions.loading && !versions.data && html`<${Loading} label="Loading versions" />`}
      <ol class="timeline" aria-label="Manifest versions, newest first">
        ${list.map(
          (v) => html`<li key=${v.version}><strong>v${v.version}</strong>
            <span class="muted" title=${when(v.createdAt)}>${ago(v.createdAt)}</span></li>`,
        )}
      </ol>
      ${list.length > 1 &&
      html`<div class="compare">
          <${VersionPair} idPrefix="manifest" options=${list.map((v) => [v.version, `v${v.version}`])}
            from=${from} to=${to} setFrom=${(v) => setFrom(Number(v))} setTo=${(v) => setTo(Number(v))} />
        </div>
        <${Diff} before=${text(from)} after=${text(to)} label=${`Diff from manifest v${from} to v${to}`} />`}
    </section>
  </div>`;
}
