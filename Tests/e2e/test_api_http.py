"""The HTTP API of shared/API.md against a real daemon: every endpoint and status, with
Python's http.client (keep-alive where it matters). Identity and Origin are in
test_api_auth.py, the event stream in test_api_sse.py, clusters in test_api_cluster.py."""
import uuid

import pytest
from openapi_spec_validator import validate

from api_support import Api, call
from auth_support import Client
from conftest import base_config

API_PATHS = [
    "/api/v1/kinds", "/api/v1/reactors/{kind}/{id}", "/api/v1/reactors/{kind}/{id}/actions", "/api/v1/actions",
    "/api/v1/reactors/{kind}/{id}/patches", "/api/v1/reactors/{kind}/{id}/events", "/api/v1/openapi.json",
]


@pytest.fixture
def hub(daemon_factory):
    return daemon_factory(base_config(history={"patches": 4, "maxBytes": 1048576}))


@pytest.fixture
def api(hub):
    client = Api(hub)
    yield client
    client.close()


def test_kinds_are_the_description_hello_gives(hub, api):
    reply = api.request("GET", "/api/v1/kinds")
    assert reply.status == 200 and reply.headers["content-type"] == "application/json"
    client = Client(hub.url)
    try:
        assert reply.json == {"kinds": client.hello["reactors"]}
    finally:
        client.close()
    assert reply.json["kinds"]["counter"] == {"actions": {"increase": {}, "decrease": {}}, "pulses": ["alertMessage"]}


def test_reading_a_state_creates_the_instance_and_tags_it_with_epoch_and_version(api):
    reply = api.state("todo/read-me")
    assert reply.status == 200
    body = reply.json
    assert body == {"reactor": "todo/read-me", "epoch": body["epoch"], "version": 0, "state": {"items": []}}
    assert reply.headers["etag"] == f'"{body["epoch"]}:0"'
    assert api.request("HEAD", "/api/v1/reactors/todo/read-me").body == b""


def test_if_none_match_with_the_current_tag_is_answered_304_without_a_body(api):
    tag = api.state("todo/tagged").headers["etag"]
    for condition in [tag, f'W/{tag}', f'"other", {tag}', "*"]:
        reply = api.request("GET", "/api/v1/reactors/todo/tagged", headers={"If-None-Match": condition})
        assert (reply.status, reply.headers["etag"], reply.body) == (304, tag, b""), condition
    assert api.act("todo/tagged", {"type": "add", "title": "milk"}).status == 200
    changed = api.request("GET", "/api/v1/reactors/todo/tagged", headers={"If-None-Match": tag})
    assert changed.status == 200 and changed.headers["etag"] != tag
    assert changed.json["version"] == 1 and changed.json["state"]["items"][0]["title"] == "milk"


def test_an_action_is_answered_once_its_immediate_mutations_are_applied(api):
    epoch = api.state("counter/acked").json["epoch"]
    reply = api.act("counter/acked", "increase")
    # The counter's increase sets isLoading at once (version 1); the value comes later.
    assert reply.status == 200
    assert reply.json == {"reactor": "counter/acked", "epoch": epoch, "version": 0, "applied": 1}
    state = api.state("counter/acked").json
    assert state["version"] >= 1
    changed = api.act("doc/acked", {"type": "set", "path": "/a", "value": 1.0})
    assert changed.json["applied"] == changed.json["version"] + 1
    assert api.state("doc/acked").json["state"] == {"a": 1.0}
    same = api.act("doc/acked", {"type": "set", "path": "/a", "value": 1.0})
    assert same.json["applied"] == same.json["version"] == 1  # nothing changed at once


def test_an_action_id_applies_once_and_a_repeat_gets_the_first_answer_marked_duplicate(api):
    action_id = str(uuid.uuid4())
    first = api.act("todo/once", {"type": "add", "title": "bread"}, action_id)
    again = api.act("todo/once", {"type": "add", "title": "bread"}, action_id)
    assert first.status == again.status == 200
    assert again.json == {**first.json, "duplicate": True}
    assert [item["title"] for item in api.state("todo/once").json["state"]["items"]] == ["bread"]


def test_a_refused_action_gets_its_error_and_status_and_changes_nothing(api):
    before = api.state("todo/refusals").json
    cases = [
        ({"action": {"type": "jump"}}, 400, "unknown_action"),
        ({"action": {"type": "add", "titel": "x"}}, 400, "invalid_action"),
        ({"action": {"type": "toggle", "id": "no-such-item"}}, 400, "invalid_action"),
        ({"action": {"type": "add", "title": "x"}, "id": ""}, 400, "bad_request"),
        ({"id": "x"}, 400, "bad_request"),
        ([1, 2], 400, "bad_request"),
        (b"{not json", 400, "bad_json"),
    ]
    for body, status, code in cases:
        reply = api.request("POST", "/api/v1/reactors/todo/refusals/actions", body)
        assert (reply.status, reply.code) == (status, code), (body, reply.body)
        assert reply.headers["content-type"] == "application/json"
        assert isinstance(reply.json["error"]["message"], str) and reply.json["error"]["message"]
    assert api.state("todo/refusals").json == before


def test_unknown_kinds_and_malformed_addresses_are_404(api):
    unknown = api.request("GET", "/api/v1/reactors/nope/x")
    assert (unknown.status, unknown.code) == (404, "unknown_reactor")
    assert "counter" in unknown.json["error"]["message"]
    assert api.act("nope/x", "increase").status == 404
    for path in ["/api/v1/reactors/Counter/x", "/api/v1/reactors/counter/bad%20id", "/api/v1/reactors/counter",
                 "/api/v1/reactors/counter/" + "x" * 65]:
        reply = api.request("GET", path)
        assert (reply.status, reply.code) == (404, "invalid_reactor"), path


def test_an_id_is_percent_decoded_before_it_is_checked(api):
    reply = api.request("GET", "/api/v1/reactors/counter/a%2Eb%5F1")
    assert reply.status == 200 and reply.json["reactor"] == "counter/a.b_1"


def test_a_path_under_the_api_that_names_no_endpoint_is_404(api):
    for path in ["/api/v1/", "/api/v1/nothing", "/api/v1/reactors/counter/x/nothing", "/api/v1/kinds/x"]:
        reply = api.request("GET", path)
        assert (reply.status, reply.code) == (404, "bad_request"), path


@pytest.mark.parametrize("method, path, allow", [
    ("DELETE", "/api/v1/kinds", "GET, HEAD"),
    ("POST", "/api/v1/reactors/counter/x", "GET, HEAD"),
    ("GET", "/api/v1/reactors/counter/x/actions", "POST"),
    ("PUT", "/api/v1/actions", "POST"),
    ("PATCH", "/api/v1/reactors/counter/x/patches", "GET, HEAD"),
    ("POST", "/api/v1/reactors/counter/x/events", "GET"),
], ids=["delete-kinds", "post-state", "get-actions", "put-batch", "patch-patches", "post-events"])
def test_a_wrong_method_is_405_with_allow(hub, method, path, allow):
    reply = call(hub, method, path, body={} if method in ("POST", "PUT", "PATCH") else None)
    assert (reply.status, reply.headers["allow"], reply.code) == (405, allow, "bad_request")


def test_a_body_over_max_message_bytes_is_413_and_nothing_is_applied(daemon_factory):
    hub = daemon_factory(base_config(limits={"maxMessageBytes": 2048}))
    big = {"action": {"type": "set", "path": "/big", "value": "x" * 4096}}
    reply = call(hub, "POST", "/api/v1/reactors/doc/big/actions", big)
    assert reply.status == 413 and reply.code == "bad_request"
    assert call(hub, "GET", "/api/v1/reactors/doc/big").json["state"] == {}


def test_a_batch_answers_each_action_in_order_each_on_its_own(api):
    reply = api.request("POST", "/api/v1/actions", {"actions": [
        {"reactor": "todo/batch", "action": {"type": "add", "title": "one"}},
        {"reactor": "todo/batch", "action": {"type": "add", "title": "two"}, "id": "batch-two"},
        {"reactor": "nope/x", "action": "increase"},
        {"reactor": "not an address", "action": "increase"},
        {"reactor": "todo/batch", "action": {"type": "jump"}},
        {"reactor": "doc/batch", "action": {"type": "set", "path": "/n", "value": 1}},
        {"action": "increase"},
        {"reactor": "todo/batch", "action": {"type": "add", "title": "two"}, "id": "batch-two"},
    ]})
    assert reply.status == 200
    results = reply.json["results"]
    epoch = api.state("todo/batch").json["epoch"]
    assert results[0] == {"reactor": "todo/batch", "epoch": epoch, "version": 0, "applied": 1}
    assert results[1] == {"reactor": "todo/batch", "epoch": epoch, "version": 1, "applied": 2}
    assert [each.get("error", {}).get("code") for each in results[2:5]] == ["unknown_reactor", "invalid_reactor", "unknown_action"]
    assert results[5]["reactor"] == "doc/batch" and results[5]["applied"] == 1
    assert results[6]["error"]["code"] == "bad_request"
    assert results[7] == {**results[1], "duplicate": True}
    assert [item["title"] for item in api.state("todo/batch").json["state"]["items"]] == ["one", "two"]


def test_a_batch_of_more_than_100_is_refused_whole_and_nothing_is_applied(api):
    actions = [{"reactor": "todo/too-many", "action": {"type": "add", "title": f"t{n}"}} for n in range(101)]
    reply = api.request("POST", "/api/v1/actions", {"actions": actions})
    assert (reply.status, reply.code) == (400, "bad_request")
    assert api.state("todo/too-many").json["version"] == 0
    for body, code in [({"actions": "x"}, "bad_request"), ({}, "bad_request"), (b"[", "bad_json")]:
        assert api.request("POST", "/api/v1/actions", body).code == code
    assert api.request("POST", "/api/v1/actions", {"actions": []}).json == {"results": []}


def test_patches_since_a_version_are_those_history_holds_else_410(api):
    epoch = api.state("todo/history").json["epoch"]
    for title in ["a", "b", "c"]:
        assert api.act("todo/history", {"type": "add", "title": title}).status == 200
    reply = api.request("GET", f"/api/v1/reactors/todo/history/patches?since=1&epoch={epoch}")
    assert reply.status == 200
    body = reply.json
    assert (body["epoch"], body["version"], [patch["version"] for patch in body["patches"]]) == (epoch, 3, [2, 3])
    assert body["patches"][0]["patch"][0]["op"] == "add" and "base" not in body["patches"][0]
    current = api.request("GET", f"/api/v1/reactors/todo/history/patches?since=3&epoch={epoch}")
    assert current.json == {"epoch": epoch, "version": 3, "patches": []}
    other = api.request("GET", "/api/v1/reactors/todo/history/patches?since=1&epoch=another")
    assert (other.status, other.code) == (410, "history_gone")
    assert (other.json["epoch"], other.json["version"]) == (epoch, 3)
    ahead = api.request("GET", f"/api/v1/reactors/todo/history/patches?since=9&epoch={epoch}")
    assert ahead.status == 410
    for title in ["d", "e", "f"]:  # history.patches is 4: version 1 is gone now
        api.act("todo/history", {"type": "add", "title": title})
    gone = api.request("GET", f"/api/v1/reactors/todo/history/patches?since=1&epoch={epoch}")
    assert (gone.status, gone.code, gone.json["version"]) == (410, "history_gone", 6)
    kept = api.request("GET", f"/api/v1/reactors/todo/history/patches?since=2&epoch={epoch}")
    assert [patch["version"] for patch in kept.json["patches"]] == [3, 4, 5, 6]
    for query in ["", "?since=1", f"?epoch={epoch}", f"?since=-1&epoch={epoch}", f"?since=x&epoch={epoch}"]:
        bad = api.request("GET", f"/api/v1/reactors/todo/history/patches{query}")
        assert (bad.status, bad.code) == (400, "bad_request"), query


def test_the_patches_rebuild_the_state(api):
    start = api.state("doc/rebuild").json
    for n in range(3):
        api.act("doc/rebuild", {"type": "set", "path": f"/k{n}", "value": [n, {"n": n}]})
    api.act("doc/rebuild", {"type": "remove", "path": "/k1"})
    import jsonpatch
    state = start["state"]
    reply = api.request("GET", f"/api/v1/reactors/doc/rebuild/patches?since=0&epoch={start['epoch']}")
    for patch in reply.json["patches"]:
        state = jsonpatch.apply_patch(state, patch["patch"])
    assert state == api.state("doc/rebuild").json["state"] == {"k0": [0, {"n": 0}], "k2": [2, {"n": 2}]}


def test_the_openapi_document_is_valid_and_lists_every_endpoint(api):
    reply = api.request("GET", "/api/v1/openapi.json")
    assert reply.status == 200 and reply.headers["content-type"] == "application/json"
    document = reply.json
    validate(document)
    assert document["openapi"].startswith("3.1")
    assert sorted(document["paths"]) == sorted(API_PATHS)


def test_actions_over_the_rate_are_429_with_retry_after(daemon_factory):
    hub = daemon_factory(base_config(limits={"actionsPerSecond": 1, "actionBurst": 3}))
    api = Api(hub)
    try:
        statuses = [api.act("todo/rate", {"type": "add", "title": f"t{n}"}).status for n in range(3)]
        limited = api.act("todo/rate", {"type": "add", "title": "over"})
        assert statuses == [200, 200, 200]
        assert (limited.status, limited.code) == (429, "rate_limited")
        assert int(limited.headers["retry-after"]) >= 1
        assert [item["title"] for item in api.state("todo/rate").json["state"]["items"]] == ["t0", "t1", "t2"]
    finally:
        api.close()


def test_an_instance_past_max_instances_is_503_overloaded_with_retry_after(daemon_factory):
    hub = daemon_factory(base_config(limits={"maxInstances": 1}))
    assert call(hub, "GET", "/api/v1/reactors/todo/first").status == 200
    for method, path, body in [("GET", "/api/v1/reactors/todo/second", None),
                               ("POST", "/api/v1/reactors/todo/second/actions", {"action": "clearCompleted"})]:
        reply = call(hub, method, path, body)
        assert (reply.status, reply.code) == (503, "overloaded")
        assert int(reply.headers["retry-after"]) >= 1


def test_with_the_api_off_every_path_under_it_is_404(daemon_factory):
    hub = daemon_factory(base_config(api={"enabled": False}))
    for method, path in [("GET", "/api/v1/kinds"), ("GET", "/api/v1/reactors/counter/x"), ("GET", "/api/v1/openapi.json"),
                         ("POST", "/api/v1/reactors/counter/x/actions"), ("GET", "/api/v1/reactors/counter/x/events")]:
        reply = call(hub, method, path, body={"action": "increase"} if method == "POST" else None)
        assert reply.status == 404, path
    client = Client(hub.url)  # the WebSocket serves on
    try:
        assert client.join("counter/x")["type"] == "snapshot"
    finally:
        client.close()


def test_keep_alive_serves_many_requests_on_one_connection(api):
    for n in range(20):
        assert api.act("todo/keep-alive", {"type": "add", "title": str(n)}).json["applied"] == n + 1
    assert len(api.state("todo/keep-alive").json["state"]["items"]) == 20


def test_an_http_action_reaches_websocket_subscribers_as_patches(hub, api):
    client = Client(hub.url)
    try:
        snapshot = client.join("todo/shared")
        reply = api.act("todo/shared", {"type": "add", "title": "from http"})
        patch = client.next_unsolicited(lambda frame: frame["type"] == "patch")
        assert patch["version"] == reply.json["applied"] == snapshot["version"] + 1
        assert patch["patch"][0]["value"]["title"] == "from http"
    finally:
        client.close()

