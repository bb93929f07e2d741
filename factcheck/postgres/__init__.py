"""Django's PostgreSQL backend with prepared statements where they pay (see base.py)."""
