"""The demo page's todo list through a proxy that delays every byte by 300 ms each way: an added
or toggled item shows at once (in the same task as the click), marked pending until the server
confirms it, and an add the server refuses goes away in one change with the server's reason."""
import re
import uuid

import pytest

from delay_proxy import DelayProxy

ITEMS = """
return [...document.querySelectorAll('[data-testid="todo-item"]')].map((li) => ({
  id: li.dataset.id,
  title: li.querySelector('[data-testid="todo-title"]').textContent,
  done: li.classList.contains('is-done'),
  pending: !li.querySelector('[data-testid="todo-pending"]').hidden,
}));
"""

# Submits the add form and reads the list in the same task: what shows before any answer.
ADD_NOW = """
const input = document.querySelector('[data-testid="todo-new"]');
input.value = arguments[0];
document.querySelector('[data-testid="todo-form"]').requestSubmit();
""" + ITEMS

TOGGLE_NOW = """
document.querySelector(`[data-testid="todo-item"][data-id="${arguments[0]}"] [data-testid="todo-toggle"]`).click();
""" + ITEMS

# Every state change of the page's todo reactor, as [cause, item count, predicted].
RECORD_STATES = """
window.__todoStates = [];
const address = 'todo/' + window.reactorhubDemo.room;
window.reactorhubDemo.client.on('state', (at, state, info) => {
  if (at === address) window.__todoStates.push([info.cause, state.items.length, info.predicted]);
});
"""

SERVER_ID = re.compile(r"^[0-9a-f]{8}$")


@pytest.fixture
def slow_page(daemon_factory):
    daemon = daemon_factory({"logLevel": "info", "reactors": {"todo": {"maxItems": 2}}}, "prediction")
    proxy = DelayProxy(daemon.port, 0.3)
    yield proxy
    proxy.close()


def test_todo_changes_show_at_once_marked_pending_and_a_refusal_rolls_back_with_the_reason(slow_page, browsers):
    a, _ = browsers
    room = f"predict-{uuid.uuid4().hex[:8]}"
    try:
        a.open(slow_page, room)
        todo_changes_through_the_slow_proxy(a, room)
    finally:
        a.driver.get("about:blank")  # before the proxy stops: the page would try to reconnect


def todo_changes_through_the_slow_proxy(a, room):
    items = lambda: a.driver.execute_script(ITEMS)  # noqa: E731
    pending = lambda: a.driver.execute_script(f"return window.reactorhubDemo.client.reactor('todo/{room}').pending")  # noqa: E731

    shown = a.driver.execute_script(ADD_NOW, "Buy milk")
    assert [(i["title"], i["done"], i["pending"]) for i in shown] == [("Buy milk", False, True)], shown
    assert pending() == 1
    a.screenshot("prediction-01-added-pending")
    a.wait(lambda _: [(i["title"], i["pending"]) for i in items()] == [("Buy milk", False)], "the add confirmed", timeout=15)
    item_id = items()[0]["id"]
    assert SERVER_ID.match(item_id), f"the server's id, not the predicted one: {item_id}"
    assert pending() == 0

    shown = a.driver.execute_script(TOGGLE_NOW, item_id)
    assert [(i["id"], i["done"], i["pending"]) for i in shown] == [(item_id, True, True)], shown
    a.screenshot("prediction-02-toggled-pending")
    a.wait(lambda _: items() == [{"id": item_id, "title": "Buy milk", "done": True, "pending": False}], "the toggle confirmed", timeout=15)

    shown = a.driver.execute_script(ADD_NOW, "Bake bread")
    assert [(i["title"], i["pending"]) for i in shown] == [("Buy milk", False), ("Bake bread", True)]
    a.wait(lambda _: [i["pending"] for i in items()] == [False, False], "the second add confirmed", timeout=15)

    a.driver.execute_script(RECORD_STATES)
    shown = a.driver.execute_script(ADD_NOW, "One too many")
    assert [(i["title"], i["pending"]) for i in shown] == [("Buy milk", False), ("Bake bread", False), ("One too many", True)]
    a.screenshot("prediction-03-refused-add-pending")
    a.wait_visible("todo-error", timeout=15)
    assert a.text("todo-error") == ("Undone: the list already has 2 items, the limit (reactors.todo.maxItems); "
                                    "remove some first")
    assert [i["title"] for i in items()] == ["Buy milk", "Bake bread"]
    assert a.find("todo-new").get_attribute("value") == "One too many", "the refused title is given back"
    # One change shows the item, one takes it away: no flicker through other states.
    assert a.driver.execute_script("return window.__todoStates") == [["predicted", 3, True], ["rollback", 2, False]]
    a.screenshot("prediction-04-rolled-back")
