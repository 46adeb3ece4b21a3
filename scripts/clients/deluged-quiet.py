#!/usr/bin/python3
"""deluged, with UPnP, NAT-PMP, LSD and DHT off from the moment its libtorrent session exists.

Deluge (2.0.3 and 2.2.0 alike) creates its libtorrent session with libtorrent's defaults and only
then applies core.conf. In those first milliseconds the session multicasts UPnP (SSDP), asks the
default gateway for a NAT-PMP mapping, resolves the DHT bootstrap hosts and joins the LSD group,
whatever core.conf says. The tests start the host's deluged through this file instead (the clients
root has the same launcher as /usr/local/bin/deluged-quiet); core.conf keeps the four off after.

Run with the Python that has Deluge and python3-libtorrent: /usr/bin/python3 deluged-quiet.py ARGS
"""
import sys

import libtorrent

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

from deluge.core.daemon_entry import start_daemon  # noqa: E402  (after the patch, on purpose)

sys.argv[0] = "deluged"
sys.exit(start_daemon())
