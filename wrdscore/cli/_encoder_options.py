"""The ``--encoder`` options, shared by every command that scores (``score``, ``compare``,
``explain``, ``baseline``, ``study sample`` and ``study analyze``): each command takes them
as one :class:`EncoderOptions` parameter (declared with :func:`encoder_options`) and reads
them with :meth:`EncoderOptions.keywords`.

torch is not imported here: a command without ``--encoder`` never loads it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from wrdscore.cli._common import DEVICE_OPTION, LAYER_OPTION, parse_weights
from wrdscore.cli._option_group import declared, flag, option, option_group
from wrdscore.errors import only_with


@dataclass(frozen=True)
class EncoderOptions:
    """The ``--encoder`` options as given (``None``: not given); fields in ``--help``'s order."""

    name: str | None = option(
        "--encoder",
        "Pretrained encoder (local folder or hub name): contextual token vectors for every "
        "embedding metric; with --embeddings, fused with that model's (needs "
        "wrdscore\\[encoders]).",
    )
    # Declared in _common: `distill` takes these two as well, `tune` --device.
    layer: int | None = declared(LAYER_OPTION)
    device: str | None = declared(DEVICE_OPTION)
    batch_size: int | None = option(
        "--batch-size", "Names per encoder forward pass \\[default: 64]."
    )
    fuse_weights: str | None = option(
        "--fuse-weights",
        "A,B: weights of the encoder's and the --embeddings model's parts \\[default: 1,1].",
    )

    def keywords(self, embeddings: object) -> dict[str, Any]:
        """The options as :func:`~wrdscore.metrics.build_metrics` keywords.

        Empty without ``--encoder``; the others are refused without it (a one-line
        error naming them), so none is ignored. ``embeddings`` is the command's
        ``--embeddings`` (None: not given), which the encoder is fused with: without
        it ``--fuse-weights`` is refused here, in the words of the command line and
        before the encoder loads (the library's refusal names its ``fuse_weights``).
        """
        if self.name is None:
            stray = [flag(f) for f in fields(self) if getattr(self, f.name) is not None]
            if stray:
                raise only_with(stray, "--encoder")
            return {}
        out: dict[str, Any] = {"encoder": self.name, "layer": self.layer, "device": self.device}
        out["batch_size"] = self.batch_size
        if self.fuse_weights is not None:
            if embeddings is None:
                raise only_with(["--fuse-weights"], "both --encoder and --embeddings")
            out["fuse_weights"] = parse_weights(self.fuse_weights, "--fuse-weights")
        return out


#: The decorator of a command with an ``encoder: EncoderOptions`` parameter: on the
#: command line, the options ``--encoder`` ... ``--fuse-weights`` in its place.
encoder_options = option_group("encoder", EncoderOptions)
