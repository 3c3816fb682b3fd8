"""What every part of the sweep package shares: the backends and the
interruption (standard library only, so that importing :mod:`skyhop.sweep`
costs nothing; how a backend is chosen and what it does are
:mod:`skyhop.sweep.backend`)."""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` for type checkers only (not imported by `skyhop run`)
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

__all__ = ["BACKENDS", "SweepInterrupted", "check_backend"]

#: where the runs of a sweep may go
BACKENDS = ("local", "ray")


class SweepInterrupted(KeyboardInterrupt):
    """A sweep stopped by Ctrl-C or SIGTERM; every finished (point, seed) is saved.

    Attributes ``done`` and ``total`` count runs (finished and in all);
    ``out`` is the sweep's directory. ``resume=True`` (``--resume``) continues.
    """

    def __init__(self, done: int, total: int, out: str) -> None:
        super().__init__(f"{done} of {total} runs saved in {out}")
        self.done, self.total, self.out = done, total, out


def check_backend(backend: Any, address: Any) -> str:
    """``backend``: "local" or "ray"; ``address`` only with "ray"."""
    from ..errors import ScenarioError

    if backend not in BACKENDS:
        raise ScenarioError(
            "<options>", "backend", f"expected one of {', '.join(BACKENDS)}, got {backend!r}"
        )
    if address is not None:
        if backend != "ray":
            raise ScenarioError("<options>", "address", "a cluster address needs backend 'ray'")
        if not isinstance(address, str) or not address.strip():
            raise ScenarioError(
                "<options>",
                "address",
                f"expected HOST:PORT, ray://HOST:PORT or auto, got {address!r}",
            )
    return backend
