# shellcheck shell=bash
# Sourced by the scripts: the external engines that tests and ladders play against, from Debian:
#   hachu            chu shogi over XBoard        /usr/games/hachu
#   fairy-stockfish  shogi (and more) over USI    /usr/games/fairy-stockfish
#   gnushogi         shogi over XBoard            /usr/games/gnushogi
#
#   shogilab_ensure_engines   installs the missing ones with apt-get when running as root with
#                             apt-get available, unless SHOGILAB_NO_INSTALL=1; never fails: an
#                             engine that cannot be installed is reported, and the tests that
#                             need it report themselves as skipped (see scripts/test).
SHOGILAB_ENGINE_PACKAGES=(hachu fairy-stockfish gnushogi)

shogilab_ensure_engines() {
    local missing=() p
    for p in "${SHOGILAB_ENGINE_PACKAGES[@]}"; do
        [ -x "/usr/games/$p" ] || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "${SHOGILAB_NO_INSTALL:-0}" = 1 ] || [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
        echo "[engines] not installed: ${missing[*]} (tests that need them will be reported as skipped)" >&2
        return 0
    fi
    echo "[engines] installing ${missing[*]} with apt-get" >&2
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } >&2; then
        echo "[engines] apt-get failed; tests that need ${missing[*]} will be reported as skipped" >&2
    fi
    return 0
}
