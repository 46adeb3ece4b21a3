#!/usr/bin/python3
"""deluged, with UPnP, NAT-PMP, LSD and DHT off from the moment its libtorrent session exists.

Deluge (2.0.3 and 2.2.0 alike) creates its libtorrent session with libtorrent's defaults and only
then applies core.conf. In those first milliseconds the session multicasts UPnP (SSDP), asks the
default gateway for a NAT-PMP mapping, resolves the DHT bootstrap hosts and joins the LSD group,
whatever core.conf says. The tests start the host's deluged through this file instead (the clients
root has the same launcher as /usr/local/bin/deluged-quiet); core.conf keeps the four off after.

A watchdog beside it: once Twisted's reactor (the thread that answers every RPC) has not turned
for STALL_SECONDS, faulthandler's own timer (a C thread: it writes even while the GIL is held)
writes every thread's stack to stderr (the daemon's log) under "Timeout (0:00:10)!". Why: under heavy load Deluge 2.2 once left a
core.add_torrent_file unanswered for 60 s in a test's set-up, and only the stacks can say where it
waited (the libtorrent session, the GIL, the alert poller). The tests keep such a log
(test/clients/daemons.ts).

Run with the Python that has Deluge and python3-libtorrent: /usr/bin/python3 deluged-quiet.py ARGS
"""
import faulthandler
import sys
import threading
import time

import libtorrent

STALL_SECONDS = 10

OFF = {"enable_upnp": False, "enable_natpmp": False, "enable_lsd": False, "enable_dht": False}
_session = libtorrent.session


class session(_session):  # noqa: N801  (the name deluge looks up)
    def __init__(self, *args, **kwargs):
        if args and isinstance(args[0], dict):
            args = ({**args[0], **OFF},) + args[1:]
        elif "settings" in kwargs and isinstance(kwargs["settings"], dict):
            kwargs["settings"] = {**kwargs["settings"], **OFF}
        elif not args:
            args = (dict(OFF),)
        super().__init__(*args, **kwargs)


libtorrent.session = session


def watch_reactor():
    """Has the reactor put off faulthandler's timer every second: once it stops, the timer writes every thread's stack."""
    armed = False
    while True:
        time.sleep(1.0)
        reactor = sys.modules.get("twisted.internet.reactor")
        if reactor is None or not getattr(reactor, "running", False):
            if armed:  # stopping: no stall to report
                faulthandler.cancel_dump_traceback_later()
                armed = False
            continue
        # Run by the reactor's own thread: each turn of it moves the timer on.
        reactor.callFromThread(faulthandler.dump_traceback_later, STALL_SECONDS, exit=False, file=sys.stderr)
        armed = True


threading.Thread(target=watch_reactor, name="reseed-lens-watchdog", daemon=True).start()

from deluge.core.daemon_entry import start_daemon  # noqa: E402  (after the patch, on purpose)

sys.argv[0] = "deluged"
sys.exit(start_daemon())
