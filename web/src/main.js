// The console's shell: sign-in, the header, and the route from the hash to a page.

import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { clearToken, getToken, whenUnauthorized } from "./api.js";
import { AgentPage } from "./agent.js";
import { Agents } from "./agents.js";
import { html } from "./html.js";
import { Login } from "./login.js";
import { href, useHash } from "./util.js";

function App() {
  const [signedIn, setSignedIn] = useState(Boolean(getToken()));
  const { path: route, asOf } = useHash();
  useEffect(() => {
    // A token revoked (or a server restarted with a new one) sends the user back to sign in.
    whenUnauthorized(() => {
      clearToken();
      setSignedIn(false);
    });
  }, []);
  if (!signedIn) return html`<${Login} onSignedIn=${() => setSignedIn(true)} />`;
  const signOut = () => {
    clearToken();
    setSignedIn(false);
  };
  const match = route.match(/^\/agents\/(.+?)\/-\/([a-z]+)(?:\/(.*))?$/);
  return html`<a class="skip" href="#main" onClick=${(e) => {
      e.preventDefault();
      document.getElementById("main")?.focus();
    }}>Skip to content</a>
    <header class="top">
      <a class="brand" href=${href("/agents")}>agent-memory</a>
      <nav aria-label="Main"><a href=${href("/agents")} aria-current=${match ? undefined : "page"}>Agents</a></nav>
      <button type="button" class="link" onClick=${signOut}>Sign out</button>
    </header>
    ${match
      ? html`<${AgentPage} key=${match[1]} agentId=${match[1]} tab=${match[2]} rest=${match[3] || ""}
          asOf=${asOf} />`
      : html`<${Agents} />`}`;
}

render(html`<${App} />`, document.getElementById("app"));
