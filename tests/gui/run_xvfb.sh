#!/usr/bin/env bash
# run_xvfb.sh PROGRAM [ARG…] — run a GTK test program on a display: the current one, else a
# fresh Xvfb (skip, 77, when there is none and xvfb-run is missing).
set -u
if [ -z "${DISPLAY:-}" ] && [ -z "${PT_GUI_TEST_UNDER_XVFB:-}" ]; then
    if ! command -v xvfb-run >/dev/null; then
        echo "run_xvfb: SKIP: no display and no xvfb-run (install xvfb xauth)"
        exit 77
    fi
    export PT_GUI_TEST_UNDER_XVFB=1
    exec xvfb-run -a -s "-screen 0 1600x1000x24" "$0" "$@"
fi
export GDK_BACKEND=x11 GSK_RENDERER=cairo NO_AT_BRIDGE=1 GTK_A11Y=none
exec "$@"
