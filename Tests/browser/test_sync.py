"""Two independent browser sessions (A: desktop, B: phone) on the same room of a real daemon
(counter delayMs 300, weather latencyMs 100): what one does, both see."""
import uuid

from selenium.webdriver.common.keys import Keys

# Records, with timestamps, every change of the counter's spinner, value and toast, so that a
# 300 ms spinner is checked in both sessions without racing the WebDriver round trips.
RECORDER = """
const rec = window.__rec = [];
const by = (id) => document.querySelector(`[data-testid="${id}"]`);
const watch = (id, read, options) => new MutationObserver(() => rec.push([id, read(by(id)), performance.now()]))
  .observe(by(id), options);
watch('counter-spinner', (el) => !el.hidden, { attributes: true, attributeFilter: ['hidden'] });
watch('counter-value', (el) => el.textContent, { childList: true, characterData: true, subtree: true });
watch('counter-toast', (el) => (el.hidden ? null : el.textContent), { attributes: true, attributeFilter: ['hidden'], childList: true, subtree: true, characterData: true });
"""

LOADING_RECORDER = """
const el = document.querySelector('[data-testid="weather-loading"]');
window.__loading = [];
new MutationObserver(() => { if (window.__loading.at(-1) !== !el.hidden) window.__loading.push(!el.hidden); })
  .observe(el, { attributes: true, attributeFilter: ['hidden'] });
"""


def room(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def recorded(browser):
    return browser.driver.execute_script("return window.__rec")


def assert_counter_sequence(events, value, toast, who):
    """spinner shown, then the new value, then spinner hidden, then the toast."""
    kinds = [(kind, state) for kind, state, _ in events]
    def index(item):
        assert item in kinds, f"[{who}] {item} never happened: {kinds}"
        return kinds.index(item)
    shown = index(("counter-spinner", True))
    changed = index(("counter-value", value))
    hidden = index(("counter-spinner", False))
    toasted = index(("counter-toast", toast))
    assert shown < changed < hidden < toasted, f"[{who}] out of order: {kinds}"
    spinner_ms = events[hidden][2] - events[shown][2]
    assert spinner_ms >= 200, f"[{who}] the spinner showed for only {spinner_ms:.0f} ms (delayMs is 300)"


def test_counter_plus_in_one_shows_spinner_then_number_and_toast_in_both(daemon, browsers):
    a, b = browsers
    name = room("counter")
    a.open(daemon, name)
    b.open(daemon, name)
    for browser in (a, b):
        browser.driver.execute_script(RECORDER)
        browser.screenshot("counter-01-before")

    a.find("counter-plus").click()
    # The spinner shows for 300 ms: screenshot it when the round trips are fast enough (the
    # recorder checks it in both sessions in any case).
    for browser in (a, b):
        browser.wait(lambda _: browser.visible("counter-spinner") or browser.text("counter-value") == "1",
                     "the spinner (or already the new number)")
        browser.screenshot("counter-02-spinner")
    for browser in (a, b):
        browser.wait_text("counter-value", "1")
        browser.wait_visible("counter-toast")
        assert browser.text("counter-toast") == "increased!"
        browser.wait_visible("counter-spinner", False)
        browser.screenshot("counter-03-increased-toast")
    for browser in (a, b):
        assert_counter_sequence(recorded(browser), "1", "increased!", browser.name)
        assert browser.version("counter") == 3

    # minus from the phone
    for browser in (a, b):
        browser.driver.execute_script(RECORDER)
    b.find("counter-minus").click()
    for browser in (a, b):
        browser.wait_text("counter-value", "0")
        browser.wait(lambda _: browser.text("counter-toast") == "decreased!", "the decreased toast")
    for browser in (a, b):
        assert_counter_sequence(recorded(browser), "0", "decreased!", browser.name)
        assert browser.version("counter") == 6
    a.screenshot("counter-04-decreased")


def todo_items(browser):
    """[(id, title, done)] as shown, read in one round trip."""
    return [tuple(row) for row in browser.driver.execute_script("""
        return [...document.querySelectorAll('[data-testid="todo-item"]')].map((li) => [li.dataset.id,
            li.querySelector('[data-testid="todo-title"]').textContent,
            li.querySelector('[data-testid="todo-toggle"]').checked]);""")]


def item(browser, title):
    for li in browser.find_all("todo-item"):
        if browser.find("todo-title", li).text == title:
            return li
    raise AssertionError(f"[{browser.name}] no item {title!r} in {todo_items(browser)}")


def same_lists(a, b, expected):
    """Waits until both sessions show `expected` [(title, done)] and the same ids, and returns the ids."""
    for browser in (a, b):
        browser.wait(lambda _: [(t, d) for _, t, d in todo_items(browser)] == expected,
                     f"the todo list {expected} (is {todo_items(browser)})")
    assert todo_items(a) == todo_items(b)
    assert a.version("todo") == b.version("todo")
    return [i for i, _, _ in todo_items(a)]


def test_todo_add_toggle_rename_reorder_remove_clear_propagate(daemon, browsers):
    a, b = browsers
    name = room("todo")
    a.open(daemon, name)
    b.open(daemon, name)

    for title in ("Buy milk", "Walk the dog", "Water the plants\n"):  # the last one with Enter
        a.find("todo-new").send_keys(title)
        if not title.endswith("\n"):
            a.find("todo-add").click()
        a.wait(lambda _: a.find("todo-new").get_attribute("value") == "", "the input to clear after the ack")
    ids = same_lists(a, b, [("Buy milk", False), ("Walk the dog", False), ("Water the plants", False)])
    assert len(set(ids)) == 3 and all(ids)
    assert b.text("todo-count") == "3 items left"
    b.screenshot("todo-01-added")

    b.find("todo-toggle", item(b, "Buy milk")).click()
    same_lists(a, b, [("Buy milk", True), ("Walk the dog", False), ("Water the plants", False)])
    assert "is-done" in item(a, "Buy milk").get_attribute("class")
    assert a.text("todo-count") == "2 items left"

    a.find("todo-rename", item(a, "Walk the dog")).click()
    field = a.find("todo-rename-input")
    assert field.get_attribute("value") == "Walk the dog"
    assert field == a.driver.switch_to.active_element
    field.send_keys("Walk the dog twice\n")  # the title starts selected: typing replaces it
    same_lists(a, b, [("Buy milk", True), ("Walk the dog twice", False), ("Water the plants", False)])

    version = a.version("todo")
    a.find("todo-rename", item(a, "Buy milk")).click()
    a.find("todo-rename-input").send_keys("Something else")
    a.find("todo-rename-input").send_keys(Keys.ESCAPE)  # cancels
    assert a.find_all("todo-rename-input") == [] and a.version("todo") == version

    a.find("todo-up", item(a, "Water the plants")).click()
    same_lists(a, b, [("Buy milk", True), ("Water the plants", False), ("Walk the dog twice", False)])
    focused = a.driver.switch_to.active_element
    assert focused.get_attribute("data-testid") == "todo-up", "the focus stays on the moved item's button"
    assert focused == a.find("todo-up", item(a, "Water the plants"))
    b.find("todo-down", item(b, "Buy milk")).click()
    same_lists(a, b, [("Water the plants", False), ("Buy milk", True), ("Walk the dog twice", False)])
    assert not a.find("todo-up", item(a, "Water the plants")).is_enabled()
    assert not a.find("todo-down", item(a, "Walk the dog twice")).is_enabled()
    a.screenshot("todo-02-toggled-renamed-moved")
    b.screenshot("todo-02-toggled-renamed-moved")

    b.find("todo-remove", item(b, "Walk the dog twice")).click()
    same_lists(a, b, [("Water the plants", False), ("Buy milk", True)])

    a.find("todo-clear").click()
    same_lists(a, b, [("Water the plants", False)])
    assert not b.visible("todo-clear")
    assert b.version("todo") == 9  # 3 adds, a toggle, a rename, 2 moves, a remove, a clear
    a.screenshot("todo-03-removed-cleared")


def test_todo_refused_action_shows_the_servers_message(daemon, browsers):
    a, _ = browsers
    a.open(daemon, room("todo-err"))
    a.find("todo-add").click()  # empty title: refused before sending
    a.wait_visible("todo-error")
    assert "Type what needs to be done" in a.text("todo-error")
    a.find("todo-new").send_keys("x")
    a.driver.execute_script(  # a title the page would not send: 201 characters, straight through the client
        "window.reactorhubDemo.client.dispatch(`todo/${window.reactorhubDemo.room}`, {type:'add', title:'y'.repeat(201)})"
        ".catch(e => { window.__refused = e.code + ': ' + e.message; })")
    a.wait(lambda d: d.execute_script("return window.__refused"), "the refusal")
    assert a.driver.execute_script("return window.__refused").startswith("invalid_action: a title must have 1 to 200")
    assert a.find_all("todo-item") == []


def test_weather_search_shows_the_card_in_both_and_an_unknown_city_the_error(daemon, browsers):
    a, b = browsers
    name = room("weather")
    a.open(daemon, name)
    b.open(daemon, name)
    for browser in (a, b):
        browser.driver.execute_script(LOADING_RECORDER)
    a.find("weather-city").send_keys("seoul")
    a.find("weather-search").click()
    for browser in (a, b):
        browser.wait_visible("weather-card")
        assert browser.text("weather-card-city") == "Seoul"
        assert browser.text("weather-card-temperature") == "3.5°C"
        assert browser.text("weather-card-condition") == "Clear"
        assert browser.text("weather-card-humidity") == "41%"
        assert not browser.visible("weather-loading") and not browser.visible("weather-empty")
        assert browser.version("weather") == 3
        browser.screenshot("weather-01-card")
    for browser in (a, b):
        assert browser.driver.execute_script("return window.__loading") == [True, False], f"[{browser.name}] loading state"
        browser.driver.execute_script(LOADING_RECORDER)

    b.find("weather-city").send_keys("Atlantis")
    b.find("weather-search").click()
    for browser in (a, b):
        browser.wait_visible("weather-error")
        assert browser.text("weather-error") == "no weather found for 'Atlantis'"
        assert browser.text("weather-card-city") == "Seoul", "an unknown city keeps the last weather"
        browser.screenshot("weather-02-unknown-city")
    assert a.version("weather") == 5
    for browser in (a, b):
        assert browser.driver.execute_script("return window.__loading") == [True, False], f"[{browser.name}] loading state"

    a.find("weather-city").clear()
    a.find("weather-city").send_keys("Toronto")
    a.find("weather-search").click()
    for browser in (a, b):
        browser.wait_text("weather-card-city", "Toronto")
        browser.wait_visible("weather-error", False)
        assert browser.text("weather-card-temperature") == "-1.4°C"
        assert browser.attr("weather-icon", "data-icon") == "i-snow"
