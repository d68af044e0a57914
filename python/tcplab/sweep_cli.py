"""Moved to `tcplab.sweep.cli`: this path keeps working, with a DeprecationWarning."""

from tcplab._moved import moved

moved(__name__)
