"""Imported by the forkserver process alone (`Workers` preloads it by name): the stop signals
are the server's to handle.

A terminal's Ctrl-C (SIGINT) and a service manager's SIGTERM reach the whole process group.
The forkserver reports each worker's exit through a pipe the server's executor watches, so a
forkserver that died of SIGTERM made every worker look dead to the server before it could
ask them to save their site models. It outlives no server: it exits when the server's end of
its pipe closes. Never import this module in the server itself.
"""

import signal

for _stop in (signal.SIGINT, signal.SIGTERM):
    signal.signal(_stop, signal.SIG_IGN)
