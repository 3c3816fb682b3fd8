"""Seeing a channel: sample one link direction's channel model over time,
as a run with the given seed would see it, and draw it.

The samples come from the engine (``skyhop._core.sample_channel``): the
model's state (0 GOOD / 1 BAD, or 0 line of sight / 1 shadowed; a row index
for fade traces) and loss probability of a 1500-byte packet; for a DVB-S
link, the fade process of its forward channel (0 GOOD / 1 BAD) and the loss
probability of a 188-byte frame in the mode its ACM policy settles in. For
``lms-urban`` the masking angle towards the satellite is drawn against the
satellite's elevation, and a second panel shows the street's full skyline
(masking angle against azimuth) at a few instants, with the satellite marked.
"""

from __future__ import annotations

import json
from typing import Any

from . import _core
from ._output import write_with
from .api import load_scenario
from .errors import ScenarioError
from .units import duration_s as parse_duration

__all__ = ["plot_channel", "sample_channel"]


def sample_channel(
    scenario: Any,
    link: str,
    *,
    direction: str = "forward",
    seed: int | None = None,
    duration_s: float | None = None,
    step_s: float | None = None,
    skylines: int = 3,
) -> dict[str, Any]:
    """Sample the channel of ``links.<link>.<direction>`` over ``duration_s``
    (default: the scenario's run duration) every ``step_s`` (default: 2000
    samples). Returns the engine's JSON as a dict (see module doc)."""
    if direction not in ("forward", "reverse"):
        raise ScenarioError("<options>", "--direction", f"{direction!r} is not forward or reverse")
    scn = load_scenario(scenario) if not hasattr(scenario, "json") else scenario
    resolved = json.loads(scn.json)
    if seed is None:
        seed = int(resolved.get("run", {}).get("seed", 1))
    if duration_s is None:
        text = resolved.get("run", {}).get("duration")
        if text is None:
            raise ScenarioError(scn.file, "run.duration", "not set: give a duration (--duration)")
        duration_s = parse_duration(text, "run.duration", scn.file)
    if not duration_s > 0:
        raise ScenarioError("<options>", "--duration", "must be positive")
    step = step_s or duration_s / 2000
    at = [duration_s * (i + 0.5) / skylines for i in range(skylines)]
    return json.loads(_core.sample_channel(scn.loaded, link, direction, seed, duration_s, step, at))


def plot_channel(samples: dict[str, Any], out: str, title: str = "") -> None:
    """Draw what :func:`sample_channel` returned into ``out`` (PNG, PDF, SVG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = samples["t_s"]
    state = [s if s is not None else 0 for s in samples["state"]]
    loss = [p if p is not None else 0.0 for p in samples["loss_probability"]]
    model = samples.get("model")
    lms = "masking_deg" in samples
    fig, axes = plt.subplots(3 if lms else 2, 1, figsize=(9, 8 if lms else 5.5))
    ax = axes[0]
    if lms:
        el = samples["elevation_deg"]
        ax.plot(
            t,
            samples["masking_deg"],
            lw=0.8,
            color="0.3",
            label="masking angle at the satellite's azimuth",
        )
        ax.axhline(el, color="tab:blue", lw=1.2, label=f"satellite elevation {el:.1f}°")
        shadow = [el <= m for m in samples["masking_deg"]]
        ax.fill_between(
            t, 0, 90, where=shadow, step="post", color="tab:red", alpha=0.15, lw=0, label="shadowed"
        )
        ax.set_ylim(0, 90)
        ax.set_ylabel("angle (°)")
        los = 1 - sum(shadow) / max(len(shadow), 1)
        ax.set_title(f"{title or samples['link']}: {model}, line of sight {los:.0%} of the time")
    else:
        ax.step(t, state, where="post", lw=0.9)
        ax.set_ylabel("state")
        if model == "gilbert-elliott":
            ax.set_yticks([0, 1], ["GOOD", "BAD"])
            bad = sum(state) / max(len(state), 1)
            ax.set_title(f"{title or samples['link']}: {model}, BAD {bad:.0%} of the time")
        else:
            ax.set_title(f"{title or samples['link']}: {model}")
    ax.legend(loc="upper right", fontsize=8) if lms else None
    ax = axes[1]
    ax.step(t, loss, where="post", lw=0.9, color="tab:red")
    ax.set_ylabel(
        "loss probability\n(188-byte frame)"
        if samples.get("model") == "dvbs"
        else "loss probability\n(1500-byte packet)"
    )
    ax.set_xlabel("time (s)")
    if lms:
        ax = axes[2]
        for sk in samples.get("skylines", []):
            ax.plot(range(360), sk["masking_deg"], lw=0.9, label=f"t = {sk['t_s']:.1f} s")
        ax.plot(
            [samples["azimuth_deg"] % 360],
            [samples["elevation_deg"]],
            "k*",
            ms=12,
            label="satellite",
        )
        ax.set_xlim(0, 359)
        ax.set_ylim(0, 90)
        ax.set_xlabel("azimuth (° from north)")
        ax.set_ylabel("skyline masking (°)")
        ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fmt = out.rsplit(".", 1)[-1].lower() if "." in out else "png"
    write_with(out, lambda tmp: fig.savefig(tmp, format=fmt, dpi=110))
    plt.close(fig)
