import { useState } from "preact/hooks";
import { request, setToken } from "./api.js";
import { html } from "./html.js";
import { Problem } from "./widgets.js";

// The token is checked with one cheap call before it is kept, so a typo is caught here.
export function Login({ onSignedIn }) {
  const [token, setValue] = useState("");
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const value = token.trim();
    try {
      // The candidate token, not the stored one: nothing is kept until it is accepted.
      await request("GET", "/v1/agents", { params: { limit: 1 }, token: value });
      setToken(value);
      onSignedIn();
    } catch (problem) {
      setError(
        problem.status === 401
          ? { code: "unauthorized", message: "This token is not accepted." }
          : problem,
      );
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="login">
    <form onSubmit=${submit} class="card">
      <h1>agent-memory</h1>
      <p>
        Paste the API token (<code>agent-memory serve</code> keeps it in${" "}
        <code>data/token</code>). It stays in this tab only and is sent in a header, never in a
        URL.
      </p>
      <label for="token">API token</label>
      <input id="token" type="password" autocomplete="off" required value=${token}
        onInput=${(e) => setValue(e.target.value)} />
      <${Problem} error=${error} />
      <button type="submit" class="primary" disabled=${busy || !token.trim()}>Sign in</button>
    </form>
  </main>`;
}
