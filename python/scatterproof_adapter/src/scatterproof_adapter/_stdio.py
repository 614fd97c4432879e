"""Takes stdout for the protocol on import (scatterproof_adapter imports it first):
the real stdout is kept here; fd 1 and sys.stdout go to stderr."""
import os
import sys


# The real stdout is kept for the protocol; fd 1 (and sys.stdout) now point
# at stderr, so a framework's banner or C++ log line cannot corrupt a response.
_protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
os.dup2(2, 1)
sys.stdout = sys.stderr
