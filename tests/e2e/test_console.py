"""The web console in a real browser (Debian's chromium, driven by Playwright) against a real
`agent-memory serve`: sign in with the token, list agents, the Memory tab (open, history, edit
with compare-and-swap, delete with confirmation), records, sessions and turns, settings, live
updates, and no console error on any page. Screenshots of each page are kept under
test-artifacts/console/ (AGENT_MEMORY_ARTIFACTS elsewhere)."""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from agent_memory.client import Client
from manifests import memory_manifest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).parents[2]
ARTIFACTS = Path(os.environ.get("AGENT_MEMORY_ARTIFACTS", ROOT / "test-artifacts")) / "console"
CHROMIUM = Path("/usr/bin/chromium")
# Chromium as this machine runs it: no sandbox (root), and none of its own calls home, which the
# closed network would refuse.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
AGENT = "teams/web/releases"
OTHER = "teams/data/etl"
MANIFEST = memory_manifest(
    kinds=["fact", "preference"],
    labels={"topic": {"number": 5, "description": "what it is about"}},
    pinned={"max_tokens": 500},
)
RELEASE = "---\ndescription: How we ship a release\n---\n# Release\n\n- Tuesdays only\n"
WAIT_MS = 15_000


@pytest.fixture(scope="module")
def playwright_browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        reason = (
            "Debian's chromium is not installed and could not be (make test runs "
            "`apt-get install -y chromium` first; no browser can be downloaded otherwise)"
        )
        if os.environ.get("CI"):
            pytest.fail(reason)  # CI runs as root with Debian's packages: it must run these
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    # Playwright starts each browser on a new, empty profile of its own (--user-data-dir).
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def module_server(console_server):
    """The module's own server, with room for the event streams of all its pages."""
    return console_server


@pytest.fixture(scope="module")
def seeded(module_server) -> dict[str, str]:
    """One agent with two committed turns (records, a file memory edited twice, history) and
    memories written through the API, a second manifest version, and a second agent."""
    c = module_server.client()
    c.put_agent(AGENT, MANIFEST)
    c.put_agent(OTHER, MANIFEST)
    session = c.create_session(AGENT, metadata={"user": "ana"})["id"]
    first = c.begin_turn(AGENT, session)["id"]
    c.append_events(
        AGENT,
        session,
        first,
        [
            {"role": "user", "text": "Remember that we release on Tuesdays."},
            {"role": "assistant", "text": "Noted: releases go out on Tuesdays."},
        ],
    )
    pinned = c.call_tool(
        AGENT,
        session,
        first,
        "add_memory",
        summary="Releases go out on Tuesdays",
        kind="fact",
        scope="agent",
        pinned=True,
        labels={"topic": "release"},
    )["memories"][0]["id"]
    c.call_tool(
        AGENT,
        session,
        first,
        "memory",
        command="create",
        path="/memories/conventions/release.md",
        file_text=RELEASE,
    )
    c.commit_turn(AGENT, session, first)
    second = c.begin_turn(AGENT, session)["id"]
    c.append_events(
        AGENT,
        session,
        second,
        [{"role": "user", "text": "The staging host is staging.example.com"}],
    )
    staging = c.call_tool(
        AGENT,
        session,
        second,
        "add_memory",
        summary="The staging host is staging.example.com",
        kind="fact",
        scope="agent",
        labels={"topic": "infra"},
    )["memories"][0]["id"]
    c.call_tool(
        AGENT,
        session,
        second,
        "memory",
        command="str_replace",
        path="/memories/conventions/release.md",
        old_str="- Tuesdays only\n",
        new_str="- Tuesdays only\n- Tag `vX.Y.Z`\n",
    )
    c.commit_turn(AGENT, session, second)
    c.put_memory(
        AGENT,
        "runbooks/deploy.md",
        "---\ndescription: Deploying\n---\nRollback with `make rollback`.\n",
    )
    c.put_memory(
        AGENT, "notes/oncall.md", "---\ndescription: Who is on call\n---\nAna this week.\n"
    )
    c.put_agent(AGENT, {"harness": {**MANIFEST["harness"], "instructions_note": "v2"}})
    # A turn whose post-turn review (the offline rule-based model) keeps what the user said.
    reviewed = c.create_session(AGENT)["id"]
    turn = c.begin_turn(AGENT, reviewed)["id"]
    c.append_events(AGENT, reviewed, turn, [{"role": "user", "text": "I prefer short answers."}])
    c.commit_turn(AGENT, reviewed, turn)
    deadline = time.monotonic() + 30
    while c.get_turn(AGENT, reviewed, turn)["extraction"]["status"] not in ("done", "failed"):
        assert time.monotonic() < deadline, "the review did not finish in 30 s"
        time.sleep(0.1)
    return {
        "reviewed_turn": turn,
        "session": session,
        "first": first,
        "second": second,
        "pinned": pinned,
        "staging": staging,
    }


@pytest.fixture
def client(module_server) -> Client:
    return module_server.client()


class Console:
    """One browser tab on the console, with every console error it logged."""

    def __init__(self, page, url: str, token: str) -> None:
        self.page = page
        self.url = url
        self.token = token
        self.errors: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def sign_in(self) -> None:
        self.page.goto(self.url + "/")
        self.page.get_by_label("API token").fill(self.token)
        self.page.get_by_role("button", name="Sign in").click()
        self.page.get_by_role("heading", name="Agents").wait_for()

    def open(self, route: str) -> None:
        self.page.goto(f"{self.url}/#{route}")

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        width = self.page.viewport_size["width"]
        self.page.screenshot(path=str(ARTIFACTS / f"{name}-{width}.png"), full_page=True)


@pytest.fixture
def console(playwright_browser, module_server, seeded) -> Iterator[Console]:
    context = playwright_browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    token = (module_server.data_dir / "token").read_text().strip()
    tab = Console(page, module_server.url, token)
    yield tab
    context.close()
    # Every page each test visited: no script error, no failed request, no warning logged as one.
    assert tab.errors == []


def expect(locator):
    from playwright.sync_api import expect as playwright_expect

    # The page's own waits and the assertions' share one bound, roomy for a busy CI machine.
    playwright_expect.set_options(timeout=WAIT_MS)
    return playwright_expect(locator)


@pytest.fixture
def fresh() -> str:
    """A path prefix no other test (or earlier run of this one) wrote under: tests that change
    memories share the module's agent."""
    return f"t{uuid.uuid4().hex[:8]}"


def test_the_server_says_where_the_console_is(module_server):
    assert f"web console: {module_server.url}/ " in module_server.output


def test_the_token_is_pasted_once_and_kept_in_session_storage_only(console):
    page = console.page
    page.goto(console.url + "/")
    expect(page.get_by_label("API token")).to_have_attribute("type", "password")
    console.shot("sign-in")
    console.sign_in()
    assert console.token not in page.url
    assert page.evaluate("sessionStorage.getItem('agent-memory.token')") == console.token
    assert page.evaluate("localStorage.length") == 0
    assert page.context.cookies() == []
    # A reload keeps the tab signed in; Sign out forgets the token.
    page.reload()
    expect(page.get_by_role("heading", name="Agents")).to_be_visible()
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_label("API token")).to_be_visible()
    assert page.evaluate("sessionStorage.length") == 0


def test_a_wrong_token_is_refused_and_kept_nowhere(console):
    page = console.page
    page.goto(console.url + "/")
    page.get_by_label("API token").fill("not-the-token")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("not accepted")
    assert page.evaluate("sessionStorage.length") == 0
    # The refusal is the one expected failed request (401), which the browser logs.
    assert console.errors and all("401" in e for e in console.errors)
    console.errors.clear()


def test_agents_are_listed_and_filtered(console):
    console.sign_in()
    page = console.page
    agents = page.get_by_role("table", name="Agents")
    expect(agents.get_by_role("link", name=AGENT)).to_be_visible()
    expect(agents.get_by_role("link", name=OTHER)).to_be_visible()
    expect(agents.get_by_role("row").filter(has_text=AGENT)).to_contain_text("v2")
    console.shot("agents")
    page.get_by_label("Filter agents").fill("data")
    expect(agents.get_by_role("link", name=OTHER)).to_be_visible()
    expect(agents.get_by_role("link", name=AGENT)).to_have_count(0)


def test_an_agent_is_created_from_a_manifest(console, client):
    console.sign_in()
    page = console.page
    page.get_by_label("Agent id").fill("teams/new/helper")
    page.get_by_label("Manifest (JSON)").fill("{not json")
    page.get_by_role("button", name="Save agent").click()
    expect(page.get_by_role("alert")).to_contain_text("not JSON")
    page.get_by_label("Manifest (JSON)").fill('{"harness": {"memory": {"enabled": true}}}')
    page.get_by_role("button", name="Save agent").click()
    expect(page.get_by_role("heading", name="teams/new/helper")).to_be_visible()
    expect(page.get_by_text("This agent has no memories yet.")).to_be_visible()
    assert client.get_agent("teams/new/helper")["manifest"]["harness"]["memory"]["enabled"]


def test_the_memory_tab_opens_a_memory_its_history_and_a_diff(console, seeded):
    console.sign_in()
    page = console.page
    page.get_by_role("link", name=AGENT).click()
    table = page.get_by_role("table", name="Memories")
    row = table.get_by_role("row").filter(has_text="conventions/release.md")
    # The spec's columns: path, description, version, who changed it last, updated.
    expect(row).to_contain_text("How we ship a release")
    expect(row).to_contain_text("v2")
    expect(row).to_contain_text("agent")
    console.shot("memory-tab")
    row.get_by_role("link", name="conventions/release.md").click()
    detail = page.get_by_role("region", name="conventions/release.md")
    expect(
        detail.get_by_role("heading", name="Release", exact=True)
    ).to_be_visible()  # rendered Markdown
    expect(detail.locator(".markdown code")).to_have_text("vX.Y.Z")
    console.shot("memory-rendered")
    detail.get_by_role("button", name="Raw").click()
    expect(detail.get_by_label("Raw content")).to_contain_text("description: How we ship a release")
    detail.get_by_role("button", name="History").click()
    versions = detail.get_by_role("list", name="Versions, newest first")
    expect(versions.get_by_role("listitem")).to_have_count(2)
    expect(versions.get_by_role("listitem").first).to_contain_text("update")
    detail.get_by_role("button", name="Compare").click()
    diff = detail.get_by_role("figure", name="Diff from v1 to v2")
    expect(diff.locator(".line.add")).to_have_text(["+- Tag `vX.Y.Z`"])
    console.shot("memory-history")
    # Its history links the turn that wrote it.
    versions.get_by_role("link", name="turn").first.click()
    expect(page.get_by_role("heading", name=re.compile(r"^Turn 2"))).to_be_visible()


def test_a_memory_is_edited_then_deleted_with_confirmation_and_its_history_shows_it(
    console, client, fresh
):
    client.put_memory(AGENT, f"{fresh}/plan.md", "---\ndescription: The plan\n---\nStep one.\n")
    console.sign_in()
    page = console.page
    console.open(f"/agents/{AGENT}/-/memory/{fresh}/plan.md")
    detail = page.get_by_role("region", name=f"{fresh}/plan.md")
    detail.get_by_role("button", name="Edit").click()
    detail.get_by_label(re.compile(f"^Content of {fresh}/plan.md")).fill(
        "---\ndescription: The plan\n---\nStep one.\nStep two.\n"
    )
    console.shot("memory-edit")
    detail.get_by_role("button", name="Save").click()
    expect(detail.get_by_role("status")).to_have_text("Saved v2.")
    assert client.get_memory(AGENT, f"{fresh}/plan.md")["content"].endswith("Step two.\n")
    # Delete asks first; Cancel keeps the memory.
    detail.get_by_role("button", name="Delete").click()
    dialog = page.get_by_role("dialog", name="Delete this memory?")
    expect(dialog).to_be_visible()
    console.shot("memory-delete-confirm")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    assert client.get_memory(AGENT, f"{fresh}/plan.md")["version"] == 2
    detail.get_by_role("button", name="Delete").click()
    dialog.get_by_role("button", name="Delete").click()
    expect(detail.get_by_role("status")).to_have_text(f"Deleted {fresh}/plan.md.")
    versions = detail.get_by_role("list", name="Versions, newest first")
    expect(versions.get_by_role("listitem").first).to_contain_text("delete")
    expect(versions.get_by_role("listitem")).to_have_count(3)
    expect(
        page.get_by_role("table", name="Memories").get_by_text(f"{fresh}/plan.md")
    ).to_have_count(0)
    console.shot("memory-deleted")
    # A reload shows the same: the memory gone, its history kept.
    page.reload()
    expect(page.get_by_text("This memory is deleted; its history is kept.")).to_be_visible()


def test_markdown_written_by_an_agent_runs_and_loads_nothing_in_the_console(console, client, fresh):
    # An agent's memory is untrusted text: the HTML in it is shown as text, never parsed; a
    # javascript: link loses its target; an image becomes a link, so nothing is fetched.
    client.put_memory(
        AGENT,
        f"{fresh}/hostile.md",
        '# Notes\n\n<b onmouseover="window.pwned = 1">bold</b>'
        '<script>window.pwned = 2</script><iframe src="javascript:window.pwned = 3"></iframe>\n\n'
        "[click](javascript:window.pwned=4) ![tracker](https://tracker.invalid/pixel.png)\n",
    )
    console.sign_in()
    page = console.page
    console.open(f"/agents/{AGENT}/-/memory/{fresh}/hostile.md")
    rendered = page.locator(".markdown")
    expect(rendered.get_by_role("heading", name="Notes")).to_be_visible()
    expect(rendered).to_contain_text('<b onmouseover="window.pwned = 1">bold</b>')
    assert rendered.locator("script, iframe, img, [onmouseover]").count() == 0
    rendered.get_by_text("click").click()
    assert rendered.get_by_text("click").get_attribute("href") is None
    expect(rendered.get_by_role("link", name="image: tracker")).to_have_attribute(
        "href", "https://tracker.invalid/pixel.png"
    )
    assert page.evaluate("window.pwned") is None


def test_an_edit_that_lost_a_race_shows_both_versions(console, client, fresh):
    client.put_memory(AGENT, f"{fresh}/race.md", "base\n")
    console.sign_in()
    page = console.page
    console.open(f"/agents/{AGENT}/-/memory/{fresh}/race.md")
    detail = page.get_by_role("region", name=f"{fresh}/race.md")
    detail.get_by_role("button", name="Edit").click()
    detail.get_by_label(re.compile(f"^Content of {fresh}/race.md")).fill("mine\n")
    client.put_memory(AGENT, f"{fresh}/race.md", "theirs\n")  # meanwhile, elsewhere
    detail.get_by_role("button", name="Save").click()
    conflict = detail.get_by_role("alert")
    expect(conflict).to_contain_text("Changed meanwhile")
    expect(conflict.get_by_label("Current version", exact=True)).to_have_text("theirs")
    expect(conflict.get_by_label("Your version", exact=True)).to_have_text("mine")
    console.shot("memory-conflict")
    assert client.get_memory(AGENT, f"{fresh}/race.md")["content"] == "theirs\n"
    detail.get_by_role("button", name="Save mine over it").click()
    expect(detail.get_by_role("status")).to_have_text("Saved v3.")
    assert client.get_memory(AGENT, f"{fresh}/race.md")["content"] == "mine\n"


def test_memories_are_searched(console):
    console.sign_in()
    console.open(f"/agents/{AGENT}/-/memory")
    page = console.page
    page.get_by_label("Search memories").fill("rollback")
    page.get_by_role("button", name="Search").click()
    table = page.get_by_role("table", name="Memories")
    expect(table.get_by_role("link").first).to_have_text("runbooks/deploy.md")
    console.shot("memory-search")


def test_a_change_made_elsewhere_appears_without_a_reload(console, client, fresh):
    console.sign_in()
    console.open(f"/agents/{AGENT}/-/memory")
    page = console.page
    # Connected: what is written from now on reaches this page.
    expect(page.get_by_role("status").filter(has_text=re.compile("^Live"))).to_be_visible()
    page.evaluate("window.stillTheSamePage = true")
    client.put_memory(
        AGENT, f"{fresh}/arrived.md", "---\ndescription: Written elsewhere\n---\nhi\n"
    )
    row = (
        page.get_by_role("table", name="Memories")
        .get_by_role("row")
        .filter(has_text=f"{fresh}/arrived.md")
    )
    expect(row).to_contain_text("Written elsewhere")
    assert page.evaluate("window.stillTheSamePage") is True
    expect(page.get_by_role("status").filter(has_text="last: 1 change")).to_be_visible()


def test_where_there_is_no_event_stream_the_page_looks_again(console, client, fresh):
    # The cloud shape has no /-/events (a 404): the page says so and looks again on a timer, so a
    # change made elsewhere still appears without a reload.
    page = console.page
    page.add_init_script("sessionStorage.setItem('agent-memory.poll-ms', '500')")
    page.route("**/-/events", lambda route: route.fulfill(status=404, body="{}"))
    console.sign_in()
    console.open(f"/agents/{AGENT}/-/memory")
    expect(page.get_by_role("status").filter(has_text="Updates every 15 s")).to_be_visible()
    page.evaluate("window.stillTheSamePage = true")
    client.put_memory(AGENT, f"{fresh}/polled.md", "---\ndescription: Seen by polling\n---\nhi\n")
    row = (
        page.get_by_role("table", name="Memories")
        .get_by_role("row")
        .filter(has_text=f"{fresh}/polled.md")
    )
    expect(row).to_contain_text("Seen by polling")
    assert page.evaluate("window.stillTheSamePage") is True
    # The browser logs the stream's 404 as a failed load: expected here, and the only error.
    assert all("404" in e for e in console.errors), console.errors
    console.errors.clear()


def test_records_are_filtered_searched_and_show_versions_and_provenance(console, seeded):
    console.sign_in()
    console.open(f"/agents/{AGENT}/-/records")
    page = console.page
    table = page.get_by_role("table", name="Records")
    expect(table.get_by_role("link", name="Releases go out on Tuesdays")).to_be_visible()
    console.shot("records")
    page.get_by_label("Pinned").select_option("true")
    page.get_by_role("button", name="Apply").click()
    expect(table.get_by_role("link")).to_have_text(["Releases go out on Tuesdays"])
    page.get_by_label("Pinned").select_option("")
    page.get_by_label("Search records").fill("staging host")
    page.get_by_role("button", name="Apply").click()
    expect(page.get_by_text("Ranked by words, meaning and recency")).to_be_visible()
    expect(table.get_by_role("link").first).to_have_text("The staging host is staging.example.com")
    table.get_by_role("link").first.click()
    detail = page.get_by_role("region", name="The staging host is staging.example.com")
    expect(detail).to_contain_text("topic: infra")
    expect(detail.get_by_role("list", name="Record versions, newest first")).to_contain_text("v1")
    # Provenance: the session and turn that wrote it.
    expect(detail).to_contain_text(seeded["session"])
    console.shot("record-detail")
    detail.get_by_role("link", name=re.compile(seeded["second"])).first.click()
    expect(page.get_by_role("heading", name=re.compile(r"^Turn 2"))).to_be_visible()


def test_a_record_kept_by_a_review_names_the_review_and_its_turn(console, seeded):
    console.sign_in()
    console.open(f"/agents/{AGENT}/-/records")
    page = console.page
    page.get_by_role("table", name="Records").get_by_role(
        "link", name=re.compile("short answers")
    ).click()
    detail = page.get_by_role("region", name=re.compile("short answers"))
    expect(detail).to_contain_text("post-turn extraction")
    expect(detail.get_by_role("link", name=re.compile("review of turn")).first).to_be_visible()
    console.shot("record-from-review")


def test_a_sessions_turn_shows_its_events_executions_and_memories(console, seeded):
    console.sign_in()
    console.open(f"/agents/{AGENT}/-/sessions")
    page = console.page
    sessions = page.get_by_role("table", name="Sessions")
    expect(sessions).to_contain_text("user: ana")
    console.shot("sessions")
    sessions.get_by_role("link", name=seeded["session"]).click()
    turns = page.get_by_role("table", name="Turns")
    first = turns.get_by_role("row").filter(has=page.get_by_role("link", name="Turn 1"))
    expect(first).to_contain_text("committed")
    expect(first).to_contain_text("app")
    turns.get_by_role("link", name="Turn 1").click()
    turn = page.get_by_role("region", name=re.compile(r"^Turn 1"))
    expect(turn.get_by_role("list", name="History events of this turn")).to_contain_text(
        "Remember that we release on Tuesdays."
    )
    expect(turn.get_by_role("list", name="Executions")).to_contain_text("add_memory")
    wrote = turn.get_by_role("list", name="Memories this turn wrote")
    expect(wrote.get_by_role("link", name="Releases go out on Tuesdays")).to_be_visible()
    expect(wrote.get_by_role("link", name="/memories/conventions/release.md")).to_be_visible()
    console.shot("session-turn")
    # Search over the session's history.
    page.get_by_label("Search this session's history").fill("staging")
    page.get_by_role("button", name="Search").click()
    # Ranked by the service's history search: the message that says it comes first.
    found = page.get_by_role("list", name="History search results")
    expect(found.get_by_role("listitem").first).to_contain_text(
        "The staging host is staging.example.com"
    )


def test_settings_show_the_manifest_versions_and_a_diff(console):
    console.sign_in()
    console.open(f"/agents/{AGENT}/-/settings")
    page = console.page
    expect(page.get_by_role("heading", name="Manifest v2")).to_be_visible()
    diff = page.get_by_role("figure", name="Diff from manifest v1 to v2")
    expect(diff.locator(".line.add")).to_contain_text(['"instructions_note": "v2"'])
    console.shot("settings")


def test_the_console_works_from_the_keyboard(console):
    page = console.page
    page.goto(console.url + "/")
    page.get_by_label("API token").focus()
    page.keyboard.type(console.token)
    page.keyboard.press("Enter")
    link = page.get_by_role("link", name=AGENT)
    link.wait_for()
    for _ in range(30):  # Tab through the page until the agent's link has the focus
        if link.evaluate("el => el === document.activeElement"):
            break
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    row = page.get_by_role("link", name="runbooks/deploy.md")
    row.focus()
    page.keyboard.press("Enter")
    detail = page.get_by_role("region", name="runbooks/deploy.md")
    detail.get_by_role("button", name="Delete").focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Delete this memory?")
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")  # cancels: the memory stays
    expect(dialog).to_be_hidden()
    expect(detail.get_by_role("button", name="Delete")).to_be_visible()


PAGES = [
    ("agents", "/agents"),
    ("memory", f"/agents/{AGENT}/-/memory"),
    ("memory-open", f"/agents/{AGENT}/-/memory/conventions/release.md"),
    ("records", f"/agents/{AGENT}/-/records"),
    ("pending", f"/agents/{AGENT}/-/pending"),
    ("sessions", f"/agents/{AGENT}/-/sessions"),
    ("settings", f"/agents/{AGENT}/-/settings"),
]


@pytest.mark.parametrize("width", [1280, 390])
def test_every_page_loads_with_labelled_controls_and_no_console_error(console, seeded, width):
    page = console.page
    page.set_viewport_size({"width": width, "height": 900})
    console.sign_in()
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    routes = [
        *PAGES,
        ("record-open", f"/agents/{AGENT}/-/records/{seeded['pinned']}"),
        ("turn-open", f"/agents/{AGENT}/-/sessions/{seeded['session']}/{seeded['first']}"),
        # the past view: its control, its banner and a read-only detail
        ("memory-past", f"/agents/{AGENT}/-/memory/conventions/release.md?asOf={now}"),
    ]
    for name, route in routes:
        console.open(route)
        page.get_by_role("main").wait_for()
        page.wait_for_load_state("networkidle")
        expect(page.get_by_role("status").filter(has_text=re.compile("Loading"))).to_have_count(0)
        unlabelled = page.evaluate(
            """[...document.querySelectorAll('input, select, textarea, button')]
                .filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')
                              && !el.textContent.trim())
                .map(el => el.outerHTML)"""
        )
        assert unlabelled == [], name
        # Readable at this width: nothing runs off the side of the page.
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name} is {overflow}px wider than the window"
        console.shot(f"page-{name}")
    assert console.errors == []


# -- the past view (asOf) and the pending writes of reviewed memory ------------------------------


def _remember(c: Client, agent: str, summary: str) -> str:
    """A committed turn whose agent adds `summary` as an agent-scope fact; the record's id."""
    session = c.create_session(agent)["id"]
    turn = c.begin_turn(agent, session)["id"]
    added = c.call_tool(agent, session, turn, "add_memory", summary=summary, kind="fact")
    c.commit_turn(agent, session, turn)
    return str(added["memories"][0]["id"])


def _local_input(page, epoch_seconds: float) -> str:
    """What the date-time input holds for that instant: the browser's local time."""
    return page.evaluate(
        """(ms) => { const d = new Date(ms), p = (n) => String(n).padStart(2, '0');
            return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T` +
                   `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`; }""",
        epoch_seconds * 1000,
    )


def _as_of(url: str) -> float | None:
    """The instant a URL's (or a route's) asOf names, in seconds since the epoch."""
    found = parse_qs(url.split("?", 1)[1] if "?" in url else "").get("asOf")
    return datetime.fromisoformat(found[0].replace("Z", "+00:00")).timestamp() if found else None


def test_the_past_view_shows_memories_records_and_manifest_as_they_stood(console, client, fresh):
    # Given an agent as it stood at a whole second `then`, and changed in every way after it
    agent = f"teams/past/{fresh}"
    client.put_agent(agent, MANIFEST)
    client.put_memory(agent, "notes/plan.md", "---\ndescription: The plan\n---\nFirst plan.\n")
    monday = _remember(client, agent, "The deploy day is Monday")
    then = float(int(time.time()) + 1)  # the next whole second: after every write above
    time.sleep(max(0.0, then + 1.1 - time.time()))
    client.put_memory(agent, "notes/plan.md", "---\ndescription: The plan\n---\nSecond plan.\n")
    client.put_memory(agent, "notes/later.md", "written after\n")
    client.delete_record(agent, monday)
    _remember(client, agent, "The deploy day is Thursday")
    client.put_agent(agent, {"harness": {**MANIFEST["harness"], "instructions_note": "v2"}})
    console.sign_in()
    page = console.page
    console.open(f"/agents/{agent}/-/memory")
    table = page.get_by_role("table", name="Memories")
    expect(table.get_by_role("row").filter(has_text="notes/plan.md")).to_contain_text("v2")
    asked: list[str] = []
    page.on("request", lambda r: "/v1/agents/" in r.url and asked.append(r.url))
    # When the view is moved to `then`
    page.get_by_label("As of").fill(_local_input(page, then))
    page.get_by_role("button", name="Show").click()
    # Then the page says it shows the past, and the route keeps the instant (a reload keeps it)
    banner = page.get_by_role("note", name="Past view")
    expect(banner).to_contain_text("Viewing the past")
    expect(banner).to_contain_text("Read-only")
    assert _as_of(urlsplit(page.url).fragment) == then
    # and the memories are as they were: the plan at v1, the later memory not yet written
    expect(table.get_by_role("row").filter(has_text="notes/plan.md")).to_contain_text("v1")
    expect(table.get_by_text("notes/later.md")).to_have_count(0)
    expect(page.get_by_text("manifest v1 then")).to_be_visible()
    console.shot("past-memory")
    table.get_by_role("link", name="notes/plan.md").click()
    detail = page.get_by_role("region", name="notes/plan.md")
    expect(detail.locator(".markdown")).to_have_text("First plan.")
    # with nothing to change it by: no Edit, no Delete
    expect(detail.get_by_role("button", name="History")).to_be_visible()
    expect(detail.get_by_role("button", name="Edit")).to_have_count(0)
    expect(detail.get_by_role("button", name="Delete")).to_have_count(0)
    # Records as they stood: Monday active, Thursday not yet said; the tab link keeps the past
    page.get_by_role("navigation", name="Agent").get_by_role("link", name="Records").click()
    records = page.get_by_role("table", name="Records")
    expect(records.get_by_role("link")).to_have_text(["The deploy day is Monday"])
    expect(banner).to_be_visible()
    records.get_by_role("link", name="The deploy day is Monday").click()
    record = page.get_by_role("region", name="The deploy day is Monday")
    expect(record.locator(".facts .status")).to_have_text("active")
    expect(record.get_by_role("list", name="Record versions, newest first")).not_to_contain_text(
        "delete"
    )
    # and the manifest then
    page.get_by_role("navigation", name="Agent").get_by_role("link", name="Settings").click()
    expect(page.get_by_role("heading", name="Manifest v1")).to_be_visible()
    console.shot("past-settings")
    # Every read of the agent's memory, records and manifest asked for that instant
    reads = [u for u in asked if re.search(r"/-/(records|memories)(\?|/)", u)]
    reads = [u for u in reads if "/versions" not in u]
    reads += [u for u in asked if urlsplit(u).path.endswith("/" + fresh)]  # the agent itself
    assert len(reads) >= 5 and all(_as_of(u) == then for u in reads), reads
    # When the view goes back to now, Then it is the present again, editable
    page.get_by_role("button", name="Back to now").click()
    expect(banner).to_have_count(0)
    assert "asOf" not in page.url
    expect(page.get_by_role("heading", name="Manifest v2")).to_be_visible()
    console.open(f"/agents/{agent}/-/memory/notes/plan.md")
    detail = page.get_by_role("region", name="notes/plan.md")
    expect(detail.locator(".markdown")).to_have_text("Second plan.")
    expect(detail.get_by_role("button", name="Edit")).to_be_visible()


def test_a_past_view_says_what_is_wrong_with_a_time_and_when_the_agent_was_not_made_yet(
    console,
):
    console.sign_in()
    page = console.page
    # A route whose asOf names no instant: said on the page, with the way back
    console.open(f"/agents/{AGENT}/-/memory?asOf=yesterday")
    expect(page.get_by_role("alert")).to_contain_text("is not a time to view the agent at")
    page.get_by_role("button", name="Back to now").click()
    expect(page.get_by_role("table", name="Memories")).to_be_visible()
    expect(page.get_by_role("alert")).to_have_count(0)
    # An empty (or partial) time, and one still to come, are refused beside the control
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("alert")).to_contain_text("Enter a whole date and time")
    page.get_by_label("As of").fill(_local_input(page, time.time() + 2 * 86400))
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("alert")).to_contain_text("still to come")
    assert "asOf" not in page.url
    # A time before the agent's first manifest: it did not exist yet
    console.open(f"/agents/{AGENT}/-/memory?asOf=2001-01-01T00:00:00Z")
    expect(page.get_by_role("status").filter(has_text="did not exist yet")).to_be_visible()
    expect(page.get_by_role("table", name="Memories")).to_have_count(0)
    console.shot("past-not-yet")
    # The one failed request is that 404, which the browser logs
    assert console.errors and all("404" in e for e in console.errors), console.errors
    console.errors.clear()


REVIEWED = {"extraction": {"approval": "review"}, "scope": {"read": ["agent"], "write": ["agent"]}}


def _pending(c: Client, agent: str, count: int) -> list[dict]:
    deadline = time.monotonic() + 60
    while len(found := c.list_records(agent, status="PENDING")["records"]) < count:
        assert time.monotonic() < deadline, "the review did not propose in 60 s"
        time.sleep(0.1)
    return found


def _said(c: Client, agent: str, text: str) -> str:
    session = c.create_session(agent)["id"]
    turn = c.begin_turn(agent, session)["id"]
    c.append_events(agent, session, turn, [{"role": "user", "text": text}])
    c.commit_turn(agent, session, turn)
    return str(turn)


def test_pending_writes_show_their_evidence_and_are_approved_or_rejected(console, client, fresh):
    # Given an agent whose review's writes wait for approval, and a reviewed turn
    agent = f"teams/review/{fresh}"
    client.put_agent(agent, memory_manifest(**REVIEWED))
    turn = _said(client, agent, "I live in Lisbon. I prefer tea over coffee.")
    _pending(client, agent, 2)
    console.sign_in()
    page = console.page
    console.open(f"/agents/{agent}/-/pending")
    listed = page.get_by_role("list", name="Pending writes")
    lisbon = listed.get_by_role("article", name="User lives in Lisbon")
    tea = listed.get_by_role("article", name="User prefers tea over coffee")
    # Then each shows what it proposes and its evidence: the review of the turn, the message
    expect(lisbon).to_contain_text("Add a new memory")
    expect(lisbon.get_by_role("link", name=re.compile("review of turn"))).to_contain_text(turn)
    lisbon.get_by_text("Messages it came from").click()
    expect(lisbon.get_by_role("list", name="Messages it came from")).to_contain_text(
        "I live in Lisbon. I prefer tea over coffee."
    )
    console.shot("pending")
    # When one is approved, Then it is a memory, gone from the list, and the records show it
    lisbon.get_by_role("button", name="Approve").click()
    expect(
        page.get_by_role("status").filter(has_text="Approved: User lives in Lisbon")
    ).to_be_visible()
    expect(lisbon).to_have_count(0)
    expect(listed.get_by_role("article")).to_have_count(1)
    [active] = client.list_records(agent)["records"]
    assert (active["summary"], active["status"]) == ("User lives in Lisbon", "ACTIVE")
    # When the other is rejected, Then nothing waits and it is kept REJECTED
    tea.get_by_role("button", name="Reject").click()
    expect(page.get_by_role("status").filter(has_text="Rejected: User prefers tea")).to_be_visible()
    expect(page.get_by_text("Nothing is waiting for approval.")).to_be_visible()
    [rejected] = client.list_records(agent, status="REJECTED")["records"]
    assert rejected["summary"] == "User prefers tea over coffee"
    page.get_by_role("navigation", name="Agent").get_by_role("link", name="Records").click()
    expect(page.get_by_role("table", name="Records").get_by_role("link")).to_have_text(
        ["User lives in Lisbon"]
    )


def test_a_refused_decision_is_said_in_words_and_the_proposal_stays(
    console, client, module_server, fresh
):
    # Given an agent that learnt where the user lives, then put its writes under review and
    # heard a correction, and the memory it would replace deleted meanwhile
    agent = f"teams/stale/{fresh}"
    client.put_agent(agent, memory_manifest(**{**REVIEWED, "extraction": {"approval": "auto"}}))
    _said(client, agent, "I live in Lisbon.")
    deadline = time.monotonic() + 60
    while not (known := client.list_records(agent)["records"]):
        assert time.monotonic() < deadline, "the review did not run in 60 s"
        time.sleep(0.1)
    client.put_agent(agent, memory_manifest(**REVIEWED))
    _said(client, agent, "Actually, I live in Porto now.")
    [correction] = _pending(client, agent, 1)
    client.delete_record(agent, known[0]["id"])
    console.sign_in()
    page = console.page
    console.open(f"/agents/{agent}/-/pending")
    item = page.get_by_role("article", name=correction["summary"])
    # Then it names the memory it would replace, and that the memory changed since
    expect(item).to_contain_text("Replace")
    expect(item.get_by_role("link", name="User lives in Lisbon")).to_be_visible()
    expect(item).to_contain_text("Changed since: now deleted at v2")
    # When it is approved, Then the refusal is said in words and it stays pending
    item.get_by_role("button", name="Approve").click()
    expect(item.get_by_role("alert")).to_contain_text(
        "The memory it would change has changed since; review again"
    )
    console.shot("pending-stale")
    assert client.get_record(agent, correction["id"])["status"] == "PENDING"
    assert all("409" in e for e in console.errors), console.errors
    console.errors.clear()
    # An agent's own credential cannot decide: the console says so
    from agent_memory.local.tokens import add_token

    own, _ = add_token(module_server.data_dir, "default", roles=frozenset({"agent"}))
    page.get_by_role("button", name="Sign out").click()
    console.token = own
    console.sign_in()
    console.open(f"/agents/{agent}/-/pending")
    item.get_by_role("button", name="Reject").click()
    expect(item.get_by_role("alert")).to_contain_text("an agent cannot approve or reject its own")
    assert client.get_record(agent, correction["id"])["status"] == "PENDING"
    assert console.errors and all("403" in e for e in console.errors), console.errors
    console.errors.clear()


def test_a_pending_write_is_shown_as_text_whatever_it_says(console, client, fresh):
    # Given a pending write whose text is markup (a review keeps what it was told)
    agent = f"teams/hostile/{fresh}"
    client.put_agent(agent, memory_manifest(**REVIEWED))
    _said(client, agent, "I live in Lisbon.")
    [record] = _pending(client, agent, 1)
    hostile = '<img src="x" onerror="window.pwned = 1">Lisbon<script>window.pwned = 2</script>'
    shown = {**record, "summary": hostile, "content": hostile, "labels": {"<b>k</b>": "<i>v</i>"}}
    page = console.page

    def listing(route) -> None:
        # the service's own answer, with the record's text replaced by markup
        answer = route.fetch()
        body = answer.json()
        body["records"] = [shown if r["id"] == record["id"] else r for r in body["records"]]
        route.fulfill(response=answer, json=body)

    page.route(re.compile(r"/-/records\?.*status=PENDING"), listing)
    console.sign_in()
    console.open(f"/agents/{agent}/-/pending")
    item = page.get_by_role("article").first
    # Then the markup is text: no element made from it, nothing run
    expect(item.get_by_role("heading", level=3)).to_have_text(hostile)
    expect(item.get_by_label("Content")).to_have_text(hostile)
    expect(item).to_contain_text("<b>k</b>: <i>v</i>")
    assert item.locator("img, script, b, i").count() == 0
    assert page.evaluate("window.pwned") is None
