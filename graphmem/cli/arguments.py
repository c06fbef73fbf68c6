"""What the ``graphmem`` verbs share: store, JSON and embedder options, policies.

The verbs of :mod:`graphmem.cli.commands` and :mod:`graphmem.cli.serving` add these
options to their parsers and turn them into values the same way.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmem.core.errors import BackendUnavailable, InvalidInput

if TYPE_CHECKING:
    from graphmem.policy.governance import GovernancePolicy
    from graphmem.retrieval import Embedder

__all__ = [
    "EMBEDDERS",
    "dump_json",
    "embedder_argument",
    "embedder_of",
    "json_argument",
    "load_policy",
    "server_embedder",
    "store_arguments",
]

EMBEDDERS = ("default", "hashing")


def store_arguments(parser: argparse.ArgumentParser, *, tenant: bool = True) -> None:
    """``--store URL`` (and ``--tenant T`` unless ``tenant=False``), both required."""
    parser.add_argument(
        "--store",
        required=True,
        metavar="URL",
        help="the store URL: memory://, file:///path/world.graphmem, neo4j://host, ...",
    )
    if tenant:
        parser.add_argument("--tenant", required=True, metavar="T", help="whose memory to use")


def json_argument(parser: argparse.ArgumentParser) -> None:
    """``--json``: print the result as JSON."""
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def embedder_argument(parser: argparse.ArgumentParser, default: str = "default") -> None:
    """``--embedder``: one of :data:`EMBEDDERS`."""
    parser.add_argument(
        "--embedder",
        choices=EMBEDDERS,
        default=default,
        help="what embeds text for retrieval: 'default' (all-MiniLM-L6-v2, needs the "
        "embeddings extra) or 'hashing' (deterministic, no model)",
    )


def embedder_of(name: str) -> Embedder:
    """The embedder a ``--embedder`` choice names.

    Raises:
        BackendUnavailable: ``default`` without the embeddings extra (the message says
            what to install, or to pass ``--embedder hashing``).
    """
    from graphmem.retrieval import HashingEmbedder, SentenceTransformerEmbedder

    if name == "hashing":
        return HashingEmbedder()
    if not SentenceTransformerEmbedder.available():
        raise BackendUnavailable(
            "retrieval needs an embedder and the embeddings extra is not installed: "
            "pip install 'graphmem[embeddings]', or pass --embedder hashing"
        )
    return SentenceTransformerEmbedder()


class _UnavailableEmbedder:
    """Stands in for the default embedder of a server without the embeddings extra."""

    def __init__(self, error: BackendUnavailable) -> None:
        self._error = error

    @property
    def dimension(self) -> int:
        raise self._error

    def embed(self, texts: Sequence[str]) -> Any:
        raise self._error


def server_embedder(name: str) -> Any:
    """The embedder a server uses; one that cannot load fails at first use, not at start."""
    try:
        return embedder_of(name)
    except BackendUnavailable as exc:
        message = str(exc).replace(
            "pass --embedder hashing", "start the server with --embedder hashing"
        )
        return _UnavailableEmbedder(BackendUnavailable(message))


def load_policy(path: Path | None) -> GovernancePolicy | None:
    """A governance policy from a TOML or JSON file (``None`` without a file).

    Keys: ``pii`` ("reject" | "redact"), ``forbidden_categories`` (a list),
    ``review_below``, ``duplicate_threshold``, ``update_threshold`` (0..1),
    ``dedup_window_seconds``, ``half_life_days``, ``signing_key_env`` (the name of an
    environment variable holding the signing key: never the key itself),
    ``retention_max_age_days`` and ``retention_max_entries``.

    Raises:
        InvalidInput: The file cannot be read, has unknown keys or bad values.
    """
    if path is None:
        return None
    import os
    import tomllib
    from datetime import timedelta

    from graphmem.policy.governance import GovernancePolicy

    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except OSError as exc:
        raise InvalidInput(f"cannot read the policy file {path}: {exc.strerror or exc}") from exc
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise InvalidInput(f"the policy file {path} cannot be parsed: {exc}") from exc
    if not isinstance(data, dict):
        raise InvalidInput(f"the policy file {path} must hold a table of settings")
    known = {
        "pii",
        "forbidden_categories",
        "review_below",
        "duplicate_threshold",
        "update_threshold",
        "dedup_window_seconds",
        "half_life_days",
        "signing_key_env",
        "retention_max_age_days",
        "retention_max_entries",
    }
    unknown = sorted(set(data) - known)
    if unknown:
        raise InvalidInput(f"the policy file {path} has unknown settings: {', '.join(unknown)}")
    kwargs: dict[str, Any] = {
        key: data[key]
        for key in ("pii", "review_below", "duplicate_threshold", "update_threshold")
        if key in data
    }
    if "retention_max_entries" in data:
        kwargs["retention_max_entries"] = data["retention_max_entries"]
    try:
        if "forbidden_categories" in data:
            kwargs["forbidden_categories"] = frozenset(data["forbidden_categories"])
        if "dedup_window_seconds" in data:
            kwargs["dedup_window"] = timedelta(seconds=float(data["dedup_window_seconds"]))
        if "half_life_days" in data:
            kwargs["half_life"] = timedelta(days=float(data["half_life_days"]))
        if "retention_max_age_days" in data:
            kwargs["retention_max_age"] = timedelta(days=float(data["retention_max_age_days"]))
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"the policy file {path} has a bad value: {exc}") from exc
    if "signing_key_env" in data:
        name = data["signing_key_env"]
        value = os.environ.get(name) if isinstance(name, str) else None
        if not value:
            raise InvalidInput(
                f"the policy file {path} names signing_key_env {name!r}, which is not set"
            )
        kwargs["signing_key"] = value.encode("utf-8")
    return GovernancePolicy(**kwargs)


def dump_json(data: Any) -> None:
    """Print ``data`` as indented JSON (non-ASCII kept)."""
    print(json.dumps(data, ensure_ascii=False, indent=2))
