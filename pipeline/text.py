"""Text normalisation shared by the importer and the pipeline: offsets index this form."""

from __future__ import annotations

import hashlib
import unicodedata


def normalise_text(text: str) -> str:
    """NFC, \\n line ends, no trailing spaces on lines, no surrounding blank space."""
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


def content_hash(text: str) -> str:
    """sha256 of the normalised text: the identity of an article."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
