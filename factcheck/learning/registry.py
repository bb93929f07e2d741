"""Which domain knows how to refit which kind of model.

The learning app owns versions and their promotion; the domains own their labels and their
training code. A domain registers its refit at start-up (its AppConfig.ready), and the
learning page offers "Refit now" only for the kinds that have one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from django.contrib.auth.models import User

from factcheck.learning.models import ModelVersion


class Refit(Protocol):
    def __call__(self, *, by: User | None) -> ModelVersion: ...


_REFITS: dict[str, Refit] = {}


def register_refit(kind: str, refit: Refit | Callable[..., ModelVersion]) -> None:
    _REFITS[kind] = refit


def refit_for(kind: str) -> Refit | None:
    return _REFITS.get(kind)


def refittable_kinds() -> set[str]:
    return set(_REFITS)
