#!/usr/bin/env bash
# Installable (issue 19): `cpack -G DEB` in the build tree makes a .deb whose dependencies
# dpkg-shlibdeps found; `dpkg -i` installs it; from another directory, with the source tree's
# data hidden (a tmpfs over profiles/ in a private mount namespace, so only the installed
# /usr/share/gradwall can serve it), the installed binary runs the default scenario and writes
# its reports; the man page and bash completion are installed and the completion offers the
# commands. The package is removed at exit. Root: labelled root.
set -euo pipefail
source "$(dirname "$0")/lib/common.bash" "$@"

build=$(dirname "$GW")
(cd "$build" && cpack -G DEB -B "$TMP/pkg") >cpack.log 2>&1 || fail "cpack: $(tail -5 cpack.log)"
deb=$(ls "$TMP"/pkg/gradwall_*.deb 2>/dev/null | head -1)
[[ -n $deb ]] || { fail "no .deb"; finish; }
dpkg-deb -f "$deb" Depends | grep -q libboost-program-options || fail "Depends lacks the shared libraries"
remove() { dpkg -r gradwall >/dev/null 2>&1 || true; rm -rf "$TMP"; }
trap remove EXIT
dpkg -i "$deb" >dpkg.log 2>&1 || fail "dpkg -i: $(tail -5 dpkg.log)"
[[ -x /usr/bin/gradwall ]] || fail "no /usr/bin/gradwall"
[[ -s /usr/share/man/man1/gradwall.1 || -s /usr/share/man/man1/gradwall.1.gz ]] || fail "no man page"
[[ -s /usr/share/bash-completion/completions/gradwall ]] || fail "no bash completion"
for page in gradwall-run gradwall-sweep gradwall-advise gradwall-emu gradwall-profile-validate; do
  [[ -s /usr/share/man/man1/$page.1 || -s /usr/share/man/man1/$page.1.gz ]] || fail "no man page $page(1)"
done
man_run=$(MANPAGER=cat MANWIDTH=100 man gradwall-run 2>/dev/null || true)
grep -q -- "--mode" <<<"$man_run" || fail "man gradwall-run does not show run's options: $(head -5 <<<"$man_run")"
words=$(bash -c 'source /usr/share/bash-completion/completions/gradwall; COMP_WORDS=(gradwall ad); COMP_CWORD=1;
  _gradwall; echo "${COMPREPLY[*]}"')
[[ $words == advise ]] || fail "completion of 'gradwall ad': '$words'"

mkdir -p elsewhere
set +e  # the default scenario fails its checks (exit 1): that is its point
unshare -m bash -c "mount -t tmpfs none '$SRC/profiles' && cd '$TMP/elsewhere' &&
  /usr/bin/gradwall run /usr/share/gradwall/scenarios/default-ddp-cross-continent.json --out out --quiet" \
  >run.log 2>&1
rc=$?
set -e
[[ $rc == 0 || $rc == 1 ]] || fail "the installed binary could not run the default scenario (exit $rc): $(tail -5 run.log)"
for f in result.json report.json report.html summary.md; do
  [[ -s elsewhere/out/$f ]] || fail "no elsewhere/out/$f"
done
finish
