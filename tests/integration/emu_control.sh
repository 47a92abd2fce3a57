#!/usr/bin/env bash
# cli.emu_control: the control endpoint `--control [::1]:0 --control-token-file F` (IPv6
# loopback). Checks: a non-loopback --control address is refused (exit 2, naming
# --control-allow-remote) before DPDK starts; without the token and with a wrong one, GET /stats and POST /profile answer 401;
# with it GET /stats answers 200 with the live counters; POST /profile with a bad profile
# answers 400 with the validation message ($.a_to_b.loss.p) and the old profile (10 ms each
# way) keeps running (median ping RTT in [20, 25] ms: the configured floor + 5 ms slack for a
# loaded machine); with a good one (30 ms each way) 200 "applied" and the median RTT is in
# [60, 65] ms; the exit stats balance and name the new profile. Then a flood: a client that
# sends a byte a second gets 408 within the 5 s request deadline and the next client is served
# right after; a body over 4 MiB, headers over 16 KiB, chunked coding and a bad Content-Length
# get 400 at once; 200 requests with bad tokens get 401 and a good one is still served; the
# 30 ms profile keeps running through all of it.
# Needs root (namespaces, af_packet); skipped with exit 0 otherwise. Labels: cli;root.
# Usage: emu_control.sh GRADWALL SOURCE_DIR   (how tests/CMakeLists.txt runs it)
set -euo pipefail

# shellcheck source=lib/common.bash
source "$(dirname "$0")/lib/common.bash" "$@"

# shellcheck source=lib/emu.bash
source "$SRC/tests/integration/lib/emu.bash" # common.bash has cd-ed to $TMP

# rtt LO HI LABEL: 15 pings; their median RTT must be in [LO, HI] ms. The median, not the
# mean: on a loaded 2-vCPU machine a few pings wait for a CPU for tens of ms.
rtt() {
  run ip netns exec gw-a ping -c 15 -i 0.1 198.18.0.2
  local median
  median=$("$PY" -c 'import re, statistics, sys; t = [float(x) for x in re.findall(r"time=([0-9.]+) ms", sys.stdin.read())]; print(statistics.median(t) if t else "")' <<<"$out")
  echo "$3: median ${median:-?} ms; $(tail -n 1 <<<"$out")"
  if [[ -z $median ]] || ! "$PY" -c "import sys; sys.exit(0 if $1 <= $median <= $2 else 1)"; then
    fail "$3: median RTT ${median:-?} ms, want [$1, $2]"
  fi
}

# http EXPECTED-STATUS LABEL CURL-ARGS...: the body goes to body.txt.
http() {
  local want=$1 label=$2 code
  shift 2
  code=$(curl -g -s -o body.txt -w '%{http_code}' "$@" || true)
  echo "$label: HTTP $code"
  [[ $code == "$want" ]] || fail "$label: HTTP $code, want $want; body: $(cat body.txt 2>/dev/null)"
}

echo '{"gradwall": "profile/v1", "name": "d10", "a_to_b": {"delay": {"delay_ms": 10}}}' >p.json
echo '{"gradwall": "profile/v1", "name": "d30", "a_to_b": {"delay": {"delay_ms": 30}}}' >good.json
echo '{"gradwall": "profile/v1", "name": "bad", "a_to_b": {"loss": {"p": 1.5}}}' >bad.json
head -c 24 /dev/urandom | base64 | tr -d '/+=' >token
token=$(<token)

run "$GW" emu --profile p.json --control 198.18.0.1:0 --control-token-file token -- --no-huge
((rc == 2)) || fail "--control 198.18.0.1:0: exit $rc, want 2 (refused)"
grep -q 'not a loopback address.*--control-allow-remote' <<<"$err" || fail "--control 198.18.0.1:0: $err"

emu_start p.json 30 --control '[::1]:0' --control-token-file token
if ! port=$(emu_stderr_port "control endpoint"); then
  fail "no control endpoint port on stderr: $(<emu.err)"
  finish
fi
url="http://[::1]:$port"
if ! emu_wait_forwarding; then
  fail "gradwall emu did not forward within ~10 s; its stderr: $(<emu.err)"
  finish
fi

http 401 "GET /stats without a token" "$url/stats"
http 401 "GET /stats with a wrong token" -H "Authorization: Bearer x$token" "$url/stats"
http 401 "POST /profile without a token" --data-binary @good.json "$url/profile"
# The lanes publish their counters every 100 ms (ForwarderOptions::publish_interval), so the
# ping that proved forwarding may not be in /stats yet: poll for up to ~2 s (20 intervals).
live_counters() {
  "$PY" -c 'import json; s=json.load(open("body.txt")); assert s["a_to_b"]["received"] >= 1 and s["final"] is False'
}
for _ in $(seq 1 20); do
  http 200 "GET /stats" -H "Authorization: Bearer $token" "$url/stats"
  live_counters 2>/dev/null && break
  sleep 0.1
done
live_counters || fail "GET /stats: not the live counters: $(<body.txt)"

http 400 "POST /profile (bad)" -H "Authorization: Bearer $token" --data-binary @bad.json "$url/profile"
grep -q 'a_to_b.loss.p' body.txt || fail "the 400 should carry the validation message: $(<body.txt)"
cat body.txt
rtt 20 25 "10 ms after the rejected profile"

http 200 "POST /profile (good)" -H "Authorization: Bearer $token" --data-binary @good.json "$url/profile"
grep -q '"applied": true' body.txt || fail "POST /profile: not applied: $(<body.txt)"
rtt 60 65 "30 ms after POST /profile"

"$PY" - "$port" "$token" <<'PY' || fail "control endpoint flood (above)"
import socket, sys, threading, time
port, token = int(sys.argv[1]), sys.argv[2]

def conn():
    return socket.create_connection(("::1", port), timeout=15)

def status(s):
    data = b""
    while b"\r\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    return int(data.split(b" ")[1]) if data.startswith(b"HTTP/1.1 ") else None

def request(raw):
    s = conn()
    s.sendall(raw)
    code = status(s)
    s.close()
    return code

good = ("GET /stats HTTP/1.1\r\nAuthorization: Bearer %s\r\n\r\n" % token).encode()
problems = []

# Slow client: one byte a second. The endpoint serves one connection at a time, so a second
# client waits behind it: both must be answered within the 5 s deadline (+2 s slack).
slow_code = []
def slow():
    s = conn()
    t0 = time.monotonic()
    try:
        for b in b"GET /stats HTTP/1.1\r\n":
            s.sendall(bytes([b]))
            time.sleep(1)
    except OSError:
        pass  # the endpoint closed it
    slow_code.append((status(s), time.monotonic() - t0))
t = threading.Thread(target=slow)
t.start()
time.sleep(0.5)
t0 = time.monotonic()
code = request(good)
waited = time.monotonic() - t0
t.join()
if not slow_code or slow_code[0][0] != 408 or slow_code[0][1] > 7:
    problems.append("slow client: %s, want 408 within 7 s" % slow_code)
if code != 200 or waited > 7:
    problems.append("the client behind the slow one: %s after %.1f s, want 200 within 7 s" % (code, waited))

for label, raw, want in [
    ("body over 4 MiB", b"POST /profile HTTP/1.1\r\nContent-Length: 5000000\r\n\r\n", 400),
    ("headers over 16 KiB", b"GET /stats HTTP/1.1\r\nX: " + b"a" * 20000 + b"\r\n\r\n", 400),
    ("chunked", b"POST /profile HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
    ("Content-Length -1", b"POST /profile HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
    ("not HTTP", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400),
]:
    t0 = time.monotonic()
    got = request(raw)
    if got != want or time.monotonic() - t0 > 2:
        problems.append("%s: %s after %.1f s, want %d at once" % (label, got, time.monotonic() - t0, want))

bad = [request(("GET /stats HTTP/1.1\r\nAuthorization: Bearer x%d\r\n\r\n" % i).encode()) for i in range(200)]
if set(bad) != {401}:
    problems.append("bad tokens: %s, want only 401" % sorted(set(bad)))
if request(good) != 200:
    problems.append("a good request after the flood was not served")
print("\n".join(problems) or "flood: every answer as expected")
sys.exit(1 if problems else 0)
PY
rtt 60 65 "30 ms after the flood"

emu_stop
emu_check_stats s.json 30
run "$PY" -c 'import json; print(json.load(open("s.json"))["profile"])'
[[ $out == d30 ]] || fail "exit stats name profile $out, want d30"

finish
