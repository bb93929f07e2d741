"""What every progress page says of the time left: one wording for runs, imports and uploads."""

from __future__ import annotations


def duration_words(seconds: float) -> str:
    """A minute or more, to the minute."""
    minutes = max(1, round(seconds / 60))
    if minutes < 60:
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def time_left_words(seconds: float | None) -> str:
    """"estimating" until there is a rate to go by."""
    if seconds is None:
        return "estimating"
    if seconds < 1:
        return "almost done"
    return "under a minute left" if seconds < 60 else f"about {duration_words(seconds)} left"
