"""What every progress page says of the time left: one wording for runs, imports and uploads."""

from __future__ import annotations


def duration_words(seconds: float) -> str:
    if seconds < 60:
        return "under a minute" if seconds >= 1 else "a moment"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def time_left_words(seconds: float | None) -> str:
    """"estimating" until there is a rate to go by."""
    return "estimating" if seconds is None else f"about {duration_words(seconds)} left"
