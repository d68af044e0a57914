"""Moved to `tcplab.validation.ns2ref` (`tcplab validate ns2`): this path keeps working, with a
DeprecationWarning on import; `python -m tcplab.ns2ref` is `tcplab validate ns2`."""

if __name__ == "__main__":
    import sys

    from tcplab.validation.ns2ref import main

    sys.exit(main(prog="python -m tcplab.ns2ref"))
else:
    from tcplab._moved import moved

    moved(__name__)
