"""Content fetched over the network for this request (a page, a feed, an API's answer) is new on
every request, as retrieved documents are; a helper's placeholder for no data is not what it
returns for a request; and the text after a value that changes on every request is that value's
loss, not an earlier one's. Small programs through the real analyzer (rules/sources.yaml
`lookup_types`)."""

from __future__ import annotations

from pathlib import Path

from promptlint.config import Config
from promptlint.engine import analyze
from tests.conftest import write_tree

HEAD = '''
from urllib.request import Request, urlopen
import httpx
import requests
from openai import OpenAI
client = OpenAI()
GUIDE = "Weigh each source by its engagement and say where the sources disagree. " * 40
'''


def pc001(tmp_path: Path, body: str) -> list[tuple[str, str]]:
    """(severity, message) of each PC001 finding, in source order."""
    root = write_tree(tmp_path, HEAD + body)
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    assert not result.errors, result.errors
    return [(f.severity.value, f.message) for f in result.findings if f.rule == "PC001"]


def sent_before_the_guide(fetch: str) -> str:
    return f'''
def fetch(ticker: str) -> str:
    return {fetch}

def analyse(ticker: str, history: list):
    return client.chat.completions.create(model="gpt-4o", messages=[
        {{"role": "system", "content": f"Posts:\\n{{fetch(ticker)}}\\n\\n{{GUIDE}}"}}, *history,
        {{"role": "user", "content": "Write the report."}}])
'''


def test_a_page_fetched_for_the_request_is_retrieved_content(tmp_path: Path) -> None:
    fetches = {
        "requests": 'requests.get("https://api.example.com/posts", params={"symbol": ticker}).text',
        "session": 'requests.Session().get(f"https://api.example.com/posts/{ticker}").text',
        "httpx": 'httpx.AsyncClient().post("https://api.example.com/search", json={"q": ticker}).json()["text"]',
        "urlopen": 'urlopen(Request(f"https://api.example.com/{ticker}.txt")).read().decode()',
    }
    for name, fetch in fetches.items():
        found = pc001(tmp_path / name, sent_before_the_guide(fetch))
        assert [severity for severity, _ in found] == ["error"], (name, found)
        assert found[0][1].startswith("per-request retrieval `"), found[0][1]
        assert "changes with what is asked" in found[0][1], found[0][1]


def test_a_fetch_of_a_constant_address_is_no_lookup(tmp_path: Path) -> None:
    # The same page on every request (a published prompt, a config), whatever the headers say.
    for name, constant in (
            ("module", 'requests.get("https://example.com/prompt.txt", headers={"Authorization": ticker}, timeout=10).text'),
            ("session", 'requests.Session().get("https://example.com/prompt.txt", headers={"X-User": ticker}).text')):
        assert pc001(tmp_path / name, sent_before_the_guide(constant)) == [], name


PLACEHOLDERS = '''
def fetch_posts(ticker: str) -> str:
    try:
        with urlopen(Request(f"https://api.example.com/{ticker}.txt")) as response:
            posts = response.read().decode().splitlines()
    except OSError as exc:
        return f"<posts unavailable: {type(exc).__name__}>"
    if not posts:
        return f"<no posts found for ${ticker}>"
    return "\\n".join(f"- {post}" for post in posts)

def analyse(history: list):
    ticker = input("Ticker: ")
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"Posts:\\n{fetch_posts(ticker)}\\n\\n{GUIDE}"}, *history,
        {"role": "user", "content": "Write the report."}])
'''


def test_a_placeholder_for_no_data_is_not_what_the_helper_returns(tmp_path: Path) -> None:
    # Before: the placeholder, first to hold the ticker the user typed, stood for the call
    # ("per-session user-input `input(...)`"), and the posts were never seen (TradingAgents'
    # StockTwits block).
    found = pc001(tmp_path, PLACEHOLDERS)
    assert [severity for severity, _ in found] == ["error"]
    assert found[0][1].startswith("per-request retrieval `urlopen(")


def test_an_objects_first_turn_is_no_placeholder(tmp_path: Path) -> None:
    # `if len(self.steps) == 0:` is a decision (the first call of a conversation), not missing
    # data: what that branch returns is a prompt like any other.
    found = pc001(tmp_path, '''
from datetime import datetime
class Agent:
    def __init__(self):
        self.steps = []
    def opening(self, note) -> str:
        if len(self.steps) == 0:
            return f"Started {datetime.now()}."
        return f"Note: {note}"
    def ask(self, note, history: list):
        self.steps.append(note)
        return client.chat.completions.create(model="gpt-4o", messages=[
            {"role": "system", "content": self.opening(note) + GUIDE}, *history,
            {"role": "user", "content": "Go on."}])
''')
    assert [severity for severity, _ in found] == ["error"]
    assert found[0][1].startswith("per-request clock `datetime.now()`")


def test_text_after_a_value_that_changes_more_often_is_not_counted(tmp_path: Path) -> None:
    # The day's date, then posts fetched per request, then the guide: the guide is cached by no
    # request because of the posts; the date costs only the sentence before them, nothing.
    found = pc001(tmp_path, '''
from datetime import date
def analyse(ticker: str, history: list):
    posts = requests.get("https://api.example.com/posts", params={"symbol": ticker}).text
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"You analyse one trading day. Date: {date.today()}.\\n"
                                      f"Report on these posts, one section per source:\\n{posts}\\n{GUIDE}"},
        *history, {"role": "user", "content": "Write the report."}])
''')
    # (Before: "per-day date `date.today()` comes before 2,946 characters of stable text".)
    assert [message.split(" `")[0] for _, message in found] == ["per-request retrieval"]


def test_a_value_before_a_per_request_one_loses_only_the_text_between(tmp_path: Path) -> None:
    # The user's id, a paragraph, posts fetched per request, then the long guide: moving the id
    # caches the paragraph, not the guide. The finding is info and names the posts; its estimate
    # counts the paragraph only (before: the guide too, as if the posts had moved with it).
    root = write_tree(tmp_path, HEAD + '''
PARAGRAPH = "You write one report per trading day for the desk, in plain words. " * 8
def analyse(ticker: str, user_id: str, history: list):
    posts = requests.get("https://api.example.com/posts", params={"symbol": ticker}).text
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": f"Desk member {user_id}.\\n{PARAGRAPH}\\nPosts:\\n{posts}\\n{GUIDE * 3}"},
        *history, {"role": "user", "content": "Write the report."}])
''')
    result = analyze([root], Config(root=root, cache_dir=None, show_info=True), cwd=root)
    [user, posts] = [f for f in result.findings if f.rule == "PC001"]
    assert (user.severity.value, posts.severity.value) == ("info", "error")
    assert "only 546 characters of stable text follow before per-request retrieval `requests.get(" in user.message
    assert user.estimate is not None and posts.estimate is not None
    assert user.estimate.lost_tokens_per_call == 0  # ~140 tokens: below every provider's minimum
    assert posts.estimate.lost_tokens_per_call is not None and posts.estimate.lost_tokens_per_call > 1000
