"""How fast the server's browser UI renders over a big space (`make
bench-ui`): a word-pair space of ATOMS atoms (`atomweave generate
--shape pairs`) served by `atomweave serve`, then, in headless Chromium
driven by Selenium, the overview (until its chart is drawn) and the page
of the atom with the largest incoming set (until its first page of
incoming links is shown), each timed from the navigation, with the API
calls behind them timed alone. Medians of ROUNDS. The server is stopped by
its pid whatever happens.

usage: python scripts/ui-bench.py BIN [ATOMS] [ROUNDS]
"""

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    binary = sys.argv[1]
    atoms = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    tmp = tempfile.mkdtemp()
    data = os.path.join(tmp, "pairs.scm")
    subprocess.run([binary, "generate", "--shape", "pairs", "-n", str(atoms), "-o", data], check=True, stdout=subprocess.DEVNULL)
    port, web = free_port(), free_port()
    server = subprocess.Popen([binary, "serve", "--port", str(port), "--http-port", str(web), "--store", f"file://{data}"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    driver = None
    try:
        line = server.stderr.readline()
        assert "listening on" in line, line
        base = f"http://127.0.0.1:{web}/"
        overview = json.load(urllib.request.urlopen(base + "api/overview"))
        # The hub: among the first atoms of each node type (the pairs'
        # PredicateNode "ANY" holds every pair), the most incoming links.
        candidates = [a for t, _ in overview["types"] if t.endswith("Node") for a in json.load(urllib.request.urlopen(base + "api/atoms?" + urllib.parse.urlencode({"type": t, "limit": 20})))["atoms"]]
        sizes = {a: json.load(urllib.request.urlopen(base + "api/atom?" + urllib.parse.urlencode({"atom": a, "limit": 1})))["incoming"]["total"] for a in candidates}
        hub = max(sizes, key=sizes.get)

        def api_ms(route):
            t = time.perf_counter()
            urllib.request.urlopen(base + route).read()
            return (time.perf_counter() - t) * 1000

        opts = webdriver.ChromeOptions()
        for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1100,900", f"--user-data-dir={tmp}/profile"]:
            opts.add_argument(arg)
        driver = webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path="/usr/bin/chromedriver"))

        def page_ms(url, css):
            driver.get("about:blank")
            t = time.perf_counter()
            driver.get(url)
            WebDriverWait(driver, 30, poll_frequency=0.005).until(lambda d: d.find_elements(By.CSS_SELECTOR, css))
            return (time.perf_counter() - t) * 1000

        atom_route = "api/atom?" + urllib.parse.urlencode({"atom": hub, "limit": 50})
        hub_url = base + "#/atom/" + urllib.parse.quote(hub, safe="")
        rows = {"overview page": [], "overview API": [], "atom page": [], "atom API": []}
        for _ in range(rounds):
            rows["overview page"].append(page_ms(base, "#types-chart"))
            rows["overview API"].append(api_ms("api/overview"))
            rows["atom page"].append(page_ms(hub_url, "#incoming table tr"))
            rows["atom API"].append(api_ms(atom_route))
        print(f"ui-bench: {overview['atoms']} atoms; the atom page of {hub}, {sizes[hub]} incoming links; medians of {rounds} (ms)")
        for name, ms in rows.items():
            print(f"  {name:<14} {statistics.median(ms):8.1f}   (runs: {', '.join(f'{m:.1f}' for m in ms)})")
    finally:
        if driver is not None:
            driver.quit()
        server.kill()
        server.wait()


if __name__ == "__main__":
    main()
