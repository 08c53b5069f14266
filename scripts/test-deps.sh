#!/usr/bin/env bash
# The programs make test needs beyond Go, installed when missing:
#   chromium  the review workbench's browser tests (judge/review, cmd/ub)
#   strace    the test that no query of ub sql reaches the network (cmd/ub)
#   unshare   the same test's network-less namespace (util-linux)
# As root on Debian, what is missing is installed with apt-get; otherwise
# the script names what is missing and the command that installs it, and
# fails, so that make test stops before tests that cannot pass.
set -euo pipefail

missing=()
for pair in chromium:chromium strace:strace unshare:util-linux; do
	cmd=${pair%%:*} pkg=${pair#*:}
	command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "make test: installing ${missing[*]} (apt-get)" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
	exit 0
fi
echo "make test needs ${missing[*]}, not found on PATH: install with" >&2
echo "  sudo apt-get install -y ${missing[*]}" >&2
echo "(or run make test as root on Debian, which installs them)" >&2
exit 1
