"""fuzz.py's Schemathesis run against a small server that keeps the contract's HTTP API (contract
sections 3 and 8, in memory, no engine): it passes, and each deliberately broken copy of it (a 405
without Allow, a quantity 0 accepted, a 500 on a long userId, an order view missing a key) fails
with the check that names its fault. So docs/openapi.yaml describes an API a server can keep, and
the step would catch a variant that breaks it."""
import json
import re
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

import pytest

from tradebench_harness.suites import fuzz

USER = re.compile(r"[A-Za-z0-9_.-]{1,64}")
NATURAL = re.compile(r"0|[1-9][0-9]{0,6}")
PRICE = re.compile(r"([0-9]{1,10})(?:\.([0-9]{1,2}))?")
ALLOW = {"/buy": "GET, POST", "/sell": "GET, POST", "/stats": "GET", "/health": "GET"}


class Bad(Exception):
    pass


def single(params: dict[str, list[str]], name: str) -> str | None:
    """Parameter NAME of a query, None when it is not there; given twice, a Bad request."""
    v = params.get(name)
    if v is None:
        return None
    if len(v) > 1:
        raise Bad(f"parameter {name} given more than once")
    return v[0]


def price_cents(price: str | None, side: str) -> int | None:
    if price is None:
        if side == "sell":
            raise Bad("price is missing")
        return None
    m = PRICE.fullmatch(price)
    cents = int(m.group(1)) * 100 + int((m.group(2) or "").ljust(2, "0")) if m else -1
    if not 0 < cents <= 100_000_000_000:
        raise Bad("price must be a number in (0, 1000000000] with at most 2 decimals")
    return cents


def parse_order(side: str, query: str, fault: str | None) -> dict:
    params: dict[str, list[str]] = {}
    for k, v in parse_qsl(query, keep_blank_values=True):
        params.setdefault(k, []).append(v)
    user = single(params, "userId")
    if user is None or not USER.fullmatch(user):
        if fault == "500-long-user" and user is not None and len(user) > 64:
            raise RuntimeError("boom")
        raise Bad("userId must be 1..64 characters of A-Z a-z 0-9 _ . -")
    product = single(params, "productId")
    if product is None or not NATURAL.fullmatch(product) or int(product) >= 100:
        raise Bad("productId must be an integer in 0..99 (unknown product)")
    qty = single(params, "quantity")
    low = 0 if fault == "zero-quantity" else 1
    if qty is None or not NATURAL.fullmatch(qty) or not low <= int(qty) <= 1_000_000:
        raise Bad("quantity must be an integer in 1..1000000")
    return {"side": side, "userId": user, "productId": product, "quantity": int(qty),
            "cents": price_cents(single(params, "price"), side)}


class FakeHandler(BaseHTTPRequestHandler):
    """The contract's HTTP API in memory; a subclass says its FAULT and holds its orders (make_handler)."""
    protocol_version = "HTTP/1.0"    # one request per connection: no body left unread to trip the next
    wbufsize = 1 << 16               # the head and the body in one write, flushed after each request
    disable_nagle_algorithm = True
    fault: str | None = None
    orders: dict[int, dict]
    lock: threading.Lock

    def log_message(self, *args):
        pass

    def __getattr__(self, name):   # every method, whatever its name, reaches answer()
        if name.startswith("do_"):
            return self.answer
        raise AttributeError(name)

    def send(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        url = urlsplit(self.path)
        path, method = url.path, self.command
        m = re.fullmatch(r"/orders/(.*)", path)
        allow = "GET" if m else ALLOW.get(path)
        if allow is None:
            return self.send(404, {"error": f"not found: {path}"})
        if method not in allow.split(", ") and not (method == "HEAD" and allow == "GET"):
            headers = () if self.fault == "no-allow" else (("Allow", allow),)
            return self.send(405, {"error": f"method not allowed: {method} {path}"}, headers)
        if path in ("/buy", "/sell"):
            return self.take_order(path[1:], url.query)
        if m:
            return self.view(m.group(1))
        if path == "/health":
            return self.send(200, {"status": "up"})
        counters = {k: 0 for k in ("accepted", "rejected", "overloaded", "salesPersisted", "salesLastMinute",
                                   "persistenceFailures", "openOrders", "pendingOrders")}
        return self.send(200, {"variant": "fake", "uptimeMs": 1, **counters, "engines": []})

    def take_order(self, side: str, query: str):
        try:
            order = parse_order(side, query, self.fault)
        except Bad as e:
            return self.send(400, {"error": str(e)})
        except RuntimeError:
            return self.send(500, {"error": "internal error"})
        with self.lock:
            oid = 1_700_000_000_000_000 + len(self.orders) + 1
            self.orders[oid] = order
        return self.send(202, {"id": oid, "side": order["side"], "status": "accepted"})

    def view(self, text: str):
        if not re.fullmatch(r"[0-9]{1,18}", text) or int(text) == 0:
            return self.send(400, {"error": "order id must be a positive integer"})
        with self.lock:
            o = self.orders.get(int(text))
        if o is None:
            return self.send(404, {"error": f"no such order: {int(text)}"})
        view = {"id": int(text), "side": o["side"], "userId": o["userId"], "productId": o["productId"],
                "quantity": o["quantity"], "remaining": o["quantity"], "status": "open", "fills": []}
        if o["cents"] is not None:
            view["price"] = o["cents"] / 100
        if self.fault == "view-without-remaining":
            del view["remaining"]
        return self.send(200, view)


def make_handler(fault: str | None):
    """A handler class of its own: FAULT, and orders that no other server shares."""
    return type("Handler", (FakeHandler,), {"fault": fault, "orders": {}, "lock": threading.Lock()})


def schemathesis(ctx, tmp_path, fault):
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(fault))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    report = tmp_path / "report.json"
    try:
        argv = fuzz.schemathesis_argv(ctx, f"http://127.0.0.1:{server.server_address[1]}", fuzz.DEFAULT_SEED,
                                      str(report), max_examples=15)
        out = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    finally:
        server.shutdown()
    cases, failures = fuzz.figures(json.loads(report.read_text()))
    return out.returncode, cases, failures, out.stdout


def test_a_server_that_keeps_the_contract_passes_every_check(ctx, tmp_path):
    rc, cases, failures, out = schemathesis(ctx, tmp_path, None)
    assert (rc, failures) == (0, 0), out[-4000:]
    assert cases > 100


@pytest.mark.parametrize("fault, check", [
    ("no-allow", "without required `Allow` header"),
    ("zero-quantity", "Response violates schema"),   # the order view of the order it accepted shows quantity 0
    ("500-long-user", "Server error"),
    ("view-without-remaining", "Response violates schema"),
])
def test_a_broken_server_fails_with_the_check_that_names_its_fault(ctx, tmp_path, fault, check):
    rc, cases, failures, out = schemathesis(ctx, tmp_path, fault)
    assert rc != 0 and failures > 0, out[-4000:]
    assert check in out, out[-4000:]


def test_the_seed_is_fixed_unless_asked_for_a_random_one():
    assert fuzz.seed_of(None) == fuzz.seed_of("") == fuzz.DEFAULT_SEED
    assert fuzz.seed_of("42") == 42
    assert 1 <= fuzz.seed_of("random") < 2**31
