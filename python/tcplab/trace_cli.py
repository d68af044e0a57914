"""Moved to `tcplab.capture.cli`: this path keeps working, with a DeprecationWarning."""

from tcplab._moved import moved

moved(__name__)
