"""The browser UI of `atomweave serve` in a real browser: Debian's Chromium,
headless, driven through chromedriver by Selenium, against a real server
on loopback with a known space. Each step is checked in the page and
screenshotted, and each screenshot must not be blank.

Run by `make test-ui` (in `make test`), with ATOMWEAVE_BIN naming the
binary. The server is stopped by its pid whatever happens.
"""

import os
import re
import socket
import struct
import tempfile
import zlib

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

# A known space: a small taxonomy, a FloatValue, and a hub with many
# incoming links (more than one page of them).
DATA = "\n".join(
    [
        '(Inheritance (Concept "cat") (Concept "mammal"))',
        '(Inheritance (Concept "dog") (Concept "mammal"))',
        '(Inheritance (Concept "mammal") (Concept "animal"))',
        '(Concept "cat" (alist (cons (Predicate "weights") (FloatValue 3.5 4 4.5 4.2))))',
    ]
    + [f'(Member (Concept "item {i}") (Concept "hub"))' for i in range(120)]
)


@pytest.fixture(scope="module")
def server(atomweave_serve):
    tmp = tempfile.mkdtemp()
    data = os.path.join(tmp, "data.scm")
    with open(data, "w") as f:
        f.write(DATA + "\n")
    served = atomweave_serve("--store", f"file://{data}")
    return {"telnet": served.telnet, "url": f"http://127.0.0.1:{served.web}/", "tmp": tmp}


@pytest.fixture(scope="module")
def browser(server):
    opts = webdriver.ChromeOptions()
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1100,900", f"--user-data-dir={server['tmp']}/profile"]:
        opts.add_argument(arg)
    service = webdriver.ChromeService(executable_path="/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=opts, service=service)
    try:
        yield driver
    finally:
        driver.quit()


def png_colours(png):
    """The distinct colours of an 8-bit RGB(A) PNG's pixels, as a set."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(png):
        n, kind = struct.unpack(">I4s", png[pos : pos + 8])
        body = png[pos + 8 : pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, seen = zlib.decompress(idat), width * channels, bytearray(width * channels), set()
    for y in range(height):
        line = raw[y * (stride + 1) : (y + 1) * (stride + 1)]
        kind, cur = line[0], bytearray(line[1:])
        for x in range(stride):
            a = cur[x - channels] if x >= channels else 0
            b, c = prev[x], prev[x - channels] if x >= channels else 0
            if kind == 1:
                cur[x] = (cur[x] + a) & 255
            elif kind == 2:
                cur[x] = (cur[x] + b) & 255
            elif kind == 3:
                cur[x] = (cur[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                cur[x] = (cur[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 8 == 0:
            seen.update(bytes(cur[i : i + 3]) for i in range(0, stride, channels * 8))
        prev = cur
    return seen


def shot(driver, server, name):
    """Screenshots the page into the test's directory; it must not be blank."""
    png = driver.get_screenshot_as_png()
    with open(os.path.join(server["tmp"], f"{name}.png"), "wb") as f:
        f.write(png)
    assert len(png_colours(png)) >= 4, f"{name}: the screenshot is blank"


def wait_for(driver, css, check=lambda e: True, timeout=10):
    """The first element `css` selects that passes `check`, once there is
    one; an element the page replaced meanwhile (it renders whole pages)
    is looked for again."""
    wait = WebDriverWait(driver, timeout, ignored_exceptions=(StaleElementReferenceException,))
    return wait.until(lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, css) if check(e)), None))


def test_the_ui_walks_through_a_space(server, browser):
    d = browser
    d.get(server["url"])
    cards = wait_for(d, "#overview-cards")
    assert re.search(r"\b249\b", cards.text), cards.text  # 126 nodes, 123 links
    wait_for(d, "#types-chart")
    shot(d, server, "1-overview")

    # Search by type and name prefix.
    d.get(server["url"] + "#/search")
    wait_for(d, "#search-form")
    field = d.find_element(By.ID, "search-prefix")
    field.send_keys("ca")
    d.find_element(By.CSS_SELECTOR, "#search-form button").click()
    result = wait_for(d, "#results a.atom", lambda e: "cat" in e.text)
    shot(d, server, "2-search")

    # Open an atom: its values, its incoming set.
    result.click()
    title = wait_for(d, "#atom-title")
    assert "ConceptNode" in title.text and "cat" in title.text
    assert d.find_elements(By.CSS_SELECTOR, "#values svg.spark"), "the FloatValue drawn as a chart"
    shot(d, server, "3-atom")

    # The hub's incoming set comes in pages; its graph grows on a click.
    d.get(server["url"] + "#/atom/" + "%28ConceptNode%20%22hub%22%29")
    wait_for(d, "#incoming", lambda e: "of 120" in e.text)
    graph = wait_for(d, "#graph")
    before = int(graph.get_attribute("data-nodes"))
    d.find_elements(By.CSS_SELECTOR, "#graph g.node")[1].click()
    wait_for(d, "#graph", lambda e: int(e.get_attribute("data-nodes")) > before)
    shot(d, server, "4-graph")

    # A query: results as a table and a graph; an error shown as one.
    d.get(server["url"] + "#/query")
    text = wait_for(d, "#query-text")
    text.clear()
    text.send_keys('(Get (Inheritance (Variable "$x") (Concept "mammal")))')
    d.find_element(By.ID, "query-run").click()
    rows = wait_for(d, "#query-rows")
    assert sorted(r.text for r in rows.find_elements(By.CSS_SELECTOR, "tr")) == ['(ConceptNode "cat")', '(ConceptNode "dog")']
    wait_for(d, "#query-graph")
    shot(d, server, "5-query")
    text.clear()
    text.send_keys("(Get (Inheritance")
    d.find_element(By.ID, "query-run").click()
    wait_for(d, "#query-out .error")

    # The live counters follow an add made by another client.
    d.get(server["url"])
    wait_for(d, "#live", lambda e: e.text.startswith("249 atoms"))
    with socket.create_connection(("127.0.0.1", server["telnet"])) as s:
        s.sendall(b'sexpr\n(Concept "new from telnet")\n')
        s.settimeout(10)
        got = b""
        while b"new from telnet" not in got:
            more = s.recv(4096)
            assert more, f"closed; got {got!r}"
            got += more
    wait_for(d, "#live", lambda e: e.text.startswith("250 atoms"))
    wait_for(d, "#overview-cards", lambda e: re.search(r"\b250\b", e.text))
    shot(d, server, "6-live")
