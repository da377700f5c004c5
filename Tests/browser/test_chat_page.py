"""Examples/Chat's page in headless Chromium against a real `chat-server` with tokens minted by
PyJWT: what alice types is shown signed by alice, what bob says (from another client) by
bob, both are members, and an edit of bob's message is refused with the kind's sentence."""
import json
import os
import pathlib
import subprocess
import time

import jwt
import websockets.sync.client as ws_client

from browser_support import DESKTOP, OUTPUT, ROOT, Browser

CHAT_BINARY = pathlib.Path(os.environ.get("REACTORHUB_CHAT_BINARY", ROOT / ".build" / "debug" / "chat-server"))
SECRET = "browser-chat-0123456789abcdef0123456789abcdef"


def mint(user: str) -> str:
    now = int(time.time())
    return jwt.encode({"sub": user, "iat": now, "exp": now + 3600, "rh": {"read": ["chat/*"], "act": ["chat/*"]}},
                      SECRET, algorithm="HS256")


def shown(browser) -> list[tuple[str, str]]:
    """(author, text) of every message on the page, in order."""
    return [tuple(pair) for pair in browser.driver.execute_script(
        "return [...document.querySelectorAll('.messages li')].map((li) => "
        "[li.querySelector('.author').textContent, li.querySelector('[data-testid=message-text]').textContent]);")]


def start_chat(tmp_path):
    config = tmp_path / "chat.json"
    config.write_text(json.dumps({"auth": {"hs256Secret": SECRET}, "webRoot": str(ROOT / "Examples" / "Chat" / "web"),
                                  "reactors": {"weather": {"dataFile": str(ROOT / "config" / "weather.json")}}}))
    OUTPUT.mkdir(parents=True, exist_ok=True)
    log = open(OUTPUT / "browser-chat.log", "ab")
    process = subprocess.Popen([str(CHAT_BINARY), "--config", str(config), "--port", "0"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=log)
    line = process.stdout.readline().decode()
    assert line.startswith("listening on http://"), line
    return process, int(line.strip().rsplit(":", 1)[1])


def test_the_chat_page_signs_messages_with_the_token_and_lists_members(tmp_path):
    process, port = start_chat(tmp_path)
    browser = Browser("chat", DESKTOP)
    try:
        browser.driver.get(f"http://127.0.0.1:{port}/?token={mint('alice')}&room=page")
        browser.wait_text("status", "open", timeout=20)
        browser.wait(lambda _: browser.text("members") == "alice", "alice a member", timeout=20)
        # bob says something from another client.
        with ws_client.connect(f"ws://127.0.0.1:{port}/ws", additional_headers={"Authorization": f"Bearer {mint('bob')}"}) as bob:
            json.loads(bob.recv(timeout=20))
            bob.send(json.dumps({"type": "join", "reactor": "chat/page", "ref": 1}))
            bob.send(json.dumps({"type": "action", "reactor": "chat/page", "ref": 2,
                                 "action": {"type": "say", "text": "hi from bob"}}))
            browser.wait(lambda _: browser.text("members") == "alice, bob", "both members", timeout=20)
            browser.wait(lambda _: "bob" in browser.text("messages") and "hi from bob" in browser.text("messages"),
                         "bob's message", timeout=20)
            text = browser.find("text")
            text.send_keys("hi from alice")
            browser.find("say").click()
            browser.wait(lambda _: shown(browser) == [("bob", "hi from bob"), ("alice", "hi from alice")],
                         f"alice's message, signed by alice (shown: {shown(browser)})", timeout=20)
            # An edit of bob's message by alice: refused with the kind's sentence.
            bob_item = browser.driver.find_elements("css selector", ".messages li")[0]
            message_id = bob_item.get_attribute("data-testid").removeprefix("message-")
            browser.driver.execute_script("window.prompt = () => 'changed by alice';")
            bob_item.find_element("css selector", "button").click()
            browser.wait_text("refusal", f"only the author of a message may edit it; '{message_id}' is bob's", timeout=20)
            assert "hi from bob" in browser.text("messages")
    finally:
        browser.quit()
        process.terminate()
        process.wait(20)
