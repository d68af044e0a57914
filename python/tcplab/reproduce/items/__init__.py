"""The reproduction items, one module per paper; importing this package registers them all."""

from tcplab.reproduce.items import barakat, jacobson, mathis, ns2, parvez  # noqa: F401
