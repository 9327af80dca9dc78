// The agent's event stream (`/-/events`, Server-Sent Events). EventSource cannot send an
// Authorization header, and the token must never be put in a URL, so the stream is read with
// fetch and parsed here; a dropped stream reconnects with Last-Event-ID and gets what it missed.

import { agentPath, getToken } from "./api.js";

export const POLL_MS = 15000;
// How often to look again where there is no stream; a test may set a shorter wait.
const pollMs = () => Number(sessionStorage.getItem("agent-memory.poll-ms")) || POLL_MS;

export function subscribe(agentId, onEvent, onState = () => {}) {
  const controller = new AbortController();
  let lastId = null;
  let delay = 1000;

  const dispatch = (block) => {
    let data = "";
    let type = "message";
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue; // a comment: the server's keep-alive
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") lastId = value;
      else if (field === "event") type = value;
      else if (field === "data") data += (data ? "\n" : "") + value;
    }
    if (!data) return;
    try {
      onEvent({ type, ...JSON.parse(data) });
    } catch {
      // An event that is not JSON is none of ours: skip it rather than stop the stream.
    }
  };

  const connect = async () => {
    while (!controller.signal.aborted) {
      try {
        const headers = { Authorization: `Bearer ${getToken() || ""}` };
        if (lastId) headers["Last-Event-ID"] = lastId;
        const response = await fetch(agentPath(agentId, "events"), {
          headers,
          signal: controller.signal,
        });
        if (response.status === 404) {
          // No stream here (the cloud shape publishes to EventBridge instead): look again every
          // POLL_MS, so a change made elsewhere still shows without a reload.
          onState("polling");
          while (!controller.signal.aborted) {
            await new Promise((resolve) => setTimeout(resolve, pollMs()));
            if (!controller.signal.aborted) onEvent({ type: "poll", changes: [] });
          }
          return;
        }
        if (response.status >= 400 && response.status < 500) {
          // No access to the stream: asking again would get the same answer.
          onState("off");
          return;
        }
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        onState("live");
        delay = 1000;
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value.replace(/\r\n?/g, "\n");
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            dispatch(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        }
      } catch (error) {
        if (controller.signal.aborted) return;
      }
      onState("reconnecting");
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 30000);
    }
  };
  connect();
  return () => controller.abort();
}
