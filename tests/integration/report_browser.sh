#!/usr/bin/env bash
# report.html, sweep.html and advice.html opened in headless Chromium (Debian's chromium, ci/setup-deps), with
# no network: each page renders (the DOM Chromium built has the title, the tables and the
# plots: <figure id="plot-..."> holding an <svg class="chart"> with its lines or bars), the page
# logs nothing to the console (it has no script, so any console message is an error: a
# malformed SVG attribute, a blocked load), it names no URL, and the screenshot is a real
# picture (a PNG of the window's size with many colours, the plots' series colours painted).
#
# Console messages are read from Chromium's log (--enable-logging=stderr --v=0, lines
# "...:CONSOLE..."): the page has no script, so there is nothing for a DevTools client to
# observe that the log does not show, and a canary page with a known-bad SVG attribute proves
# on every run that this Chromium version still logs console errors where we grep for them
# (otherwise the check could pass by never seeing anything).
# Chromium runs as root in CI: --no-sandbox (Chromium refuses root otherwise); no network:
# a fresh network namespace (unshare -n as root, -rn otherwise) plus a resolver that resolves
# nothing.
set -euo pipefail
source "$(dirname "$0")/lib/common.bash" "$@"

CHROMIUM=${CHROMIUM:-$(command -v chromium || true)}
if [[ -z $CHROMIUM ]]; then
  echo "FAIL: $NAME needs chromium (Debian package; ci/setup-deps installs it)" >&2
  exit 1
fi
nonet=()
if unshare -n true 2>/dev/null; then
  nonet=(unshare -n)
elif unshare -rn true 2>/dev/null; then
  nonet=(unshare -rn)
else
  echo "note: no network namespace available; relying on --host-resolver-rules only" >&2
fi

# browser TAG ARGS... URL: one headless Chromium run; stderr (the log) in $TMP/TAG.log.
browser() {
  local tag=$1
  shift
  timeout 120 "${nonet[@]}" "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --no-first-run --no-default-browser-check --disable-extensions --disable-sync \
    --disable-background-networking --disable-component-update --host-resolver-rules='MAP * ~NOTFOUND' \
    --user-data-dir="$TMP/profile-$tag" --enable-logging=stderr --v=0 "$@" 2>"$TMP/$tag.log"
}
# Chromium's own pages (source: chrome://...) log too, e.g. "Slow network is detected" from
# its new-tab UI on a loaded machine: those are not the report's and are left out.
console_lines() { grep -E 'CONSOLE[:(]|Uncaught' "$TMP/$1.log" | grep -v 'source: chrome://' || true; }

# The canary: a page whose console errors we know.
cat >canary.html <<'EOF'
<!DOCTYPE html><html><body><svg width="10" height="10"><rect x="a" width="5" height="5"/></svg></body></html>
EOF
browser canary --dump-dom "file://$TMP/canary.html" >canary.dom || fail "chromium failed on the canary page"
[[ $(console_lines canary) == *'<rect> attribute x'* ]] ||
  fail "the canary's SVG error is not in Chromium's log; the console check cannot see errors: $(tail -5 "$TMP/canary.log")"

# open PAGE TAG WIDTH HEIGHT: screenshot and DOM of one page, and its console.
open_page() {
  local page=$1 tag=$2 w=$3 h=$4
  browser "$tag-shot" --window-size="$w,$h" --screenshot="$TMP/$tag.png" "file://$page" >/dev/null ||
    fail "$tag: chromium --screenshot exited $?"
  browser "$tag-dom" --window-size="$w,$h" --dump-dom "file://$page" >"$TMP/$tag.dom" ||
    fail "$tag: chromium --dump-dom exited $?"
  for log in "$tag-shot" "$tag-dom"; do
    local msgs
    msgs=$(console_lines "$log")
    [[ -z $msgs ]] || fail "$tag: console messages: $msgs"
  done
}

# check_page TAG WIDTH HEIGHT FIGURE_ID...: the DOM has the report's structure and each figure's
# plot; the screenshot is a PNG of WIDTH x HEIGHT with many colours and the first series colour.
check_page() {
  "$PY" - "$@" <<'PY' || fail "$1: DOM or screenshot"
import html.parser, struct, sys, zlib
tag, w, h, figures = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]

class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.figs, self.h1, self.urls, self.scripts, self.tables = [], {}, "", [], 0, 0
    def handle_starttag(self, t, attrs):
        a = dict(attrs)
        for k in ("src", "href"):
            if a.get(k):
                self.urls.append(a[k])
        self.scripts += t == "script"
        self.tables += t == "table"
        if t == "figure" and "id" in a:
            self.figs[a["id"]] = {"svg": 0, "title": "", "polyline": 0, "rect_fill": 0}
        fig = next((f for f in reversed(self.stack) if f[0] == "figure" and "id" in f[1]), None)
        if fig:
            f = self.figs[fig[1]["id"]]
            f["svg"] += t == "svg" and "chart" in a.get("class", "")
            f["polyline"] += t == "polyline" and len(a.get("points", "").split()) >= 2
            f["rect_fill"] += t == "rect" and "fill" in a and float(a.get("height", 0)) > 0
        if t not in ("meta", "br", "img", "input", "link", "hr"):  # HTML void elements
            self.stack.append((t, a))
    def handle_startendtag(self, t, attrs):
        self.handle_starttag(t, attrs)
        self.handle_endtag(t)
    def handle_endtag(self, t):
        if any(s[0] == t for s in self.stack):
            while self.stack.pop()[0] != t:
                pass
    def handle_data(self, d):
        if any(s[0] == "h1" for s in self.stack):
            self.h1 += d

d = Dom()
d.feed(open(f"{tag}.dom").read())
assert d.h1.startswith("gradwall:"), f"no rendered <h1>: {d.h1!r}"
assert d.tables >= 1, "no tables"
assert d.scripts == 0 and not d.urls, (d.scripts, d.urls)
for fid in figures:
    f = d.figs.get(fid)
    assert f, f"no <figure id={fid}> (have {sorted(d.figs)})"
    assert f["svg"] == 1, (fid, f)
    assert f["polyline"] + f["rect_fill"] >= 1, f"{fid}: nothing plotted: {f}"

# The screenshot: decode the PNG (8-bit RGB/RGBA, non-interlaced, as Chromium writes it).
data = open(f"{tag}.png", "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, typ = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if typ == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", body)
    elif typ == b"IDAT":
        idat += body
    pos += 12 + n
pw, ph, depth, ctype, _, _, interlace = ihdr
assert (pw, ph) == (w, h), f"screenshot is {pw}x{ph}, want {w}x{h}"
assert depth == 8 and ctype in (2, 6) and interlace == 0, ihdr
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), pw * bpp
prev, colours, nonwhite = bytearray(stride), {}, 0
for y in range(ph):
    ft, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if ft == 2:  # "up", the most common filter: one pass without the per-byte loop below
        line, ft = bytearray(map(lambda u, v: (u + v) & 255, line, prev)), 0
    for i in range(stride if ft else 0):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if ft == 1: line[i] = (line[i] + a) & 255
        elif ft == 2: line[i] = (line[i] + b) & 255
        elif ft == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif ft == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        rgb = bytes(line[x:x + 3])
        colours[rgb] = colours.get(rgb, 0) + 1
    prev = line
white = colours.get(b"\xff\xff\xff", 0)
nonwhite = pw * ph - white
# A blank page is one colour; text alone gives grey anti-aliasing; plots add their series colours.
assert len(colours) >= 50, f"only {len(colours)} distinct colours: blank page?"
assert nonwhite >= 0.02 * pw * ph, f"only {nonwhite} non-white pixels of {pw * ph}"
blue = colours.get(bytes([0x1f, 0x77, 0xb4]), 0)  # the first series' colour (reports/svg.cc)
assert blue >= 50, f"the first series colour #1f77b4 covers {blue} pixels: plots not painted"
print(f"{tag}: {len(colours)} colours, {100 * nonwhite / (pw * ph):.1f} % non-white, "
      f"#1f77b4 on {blue} pixels, figures {sorted(d.figs)}")
PY
}

# A collective training job (CCT CDF, per-iteration breakdown, queue over time) ...
run "$GW" run "$SRC/tests/golden/scenarios/ddp-small.json" --out ddp --quiet
[[ $rc == 0 || $rc == 1 ]] || fail "ddp run exited $rc: $err"
open_page "$TMP/ddp/report.html" ddp 1280 2400
check_page ddp 1280 2400 plot-cct-cdf plot-attribution plot-iterations plot-queue

# ... flows (throughput and queue over time) ...
run "$GW" run "$SRC/tests/golden/scenarios/flows-cubic-vs-reno.json" --out flows --quiet
[[ $rc == 0 || $rc == 1 ]] || fail "flows run exited $rc: $err"
open_page "$TMP/flows/report.html" flows 1280 1600
check_page flows 1280 1600 plot-throughput plot-queue

# ... and the comparison across runs (gradwall sweep: p99 CCT per op kind, per run).
run "$GW" sweep "$SRC/tests/golden/scenarios/ring-allreduce-2x2.json" --set transport.cc=dctcp,cubic \
  --out sweep --jobs 2
[[ $rc == 0 || $rc == 1 ]] || fail "sweep exited $rc: $err"
open_page "$TMP/sweep/sweep.html" sweep 1280 1200
check_page sweep 1280 1200 plot-compare-cct-p99-0

# ... and advise's page: the ranked changes and the cost-against-speed plot (Pareto front).
run "$GW" advise "$SRC/tests/golden/scenarios/ring-allreduce-2x2.json" --axes cc --out advise --jobs 2
[[ $rc == 0 || $rc == 1 ]] || fail "advise exited $rc: $err"
open_page "$TMP/advise/advice.html" advise 1280 1200
check_page advise 1280 1200 plot-advice

if [[ -n ${GW_KEEP_SCREENSHOTS:-} ]]; then
  mkdir -p "$GW_KEEP_SCREENSHOTS" && cp "$TMP"/*.png "$GW_KEEP_SCREENSHOTS"/
fi
finish
