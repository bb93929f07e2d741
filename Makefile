# Two commands for a new user: `make up` and `make test`. See README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help up test chaos bench setup passwords stop lint

help:
	@echo "make up        set everything up, load the seeds, run the pipeline, serve the app (Ctrl-C stops)"
	@echo "make test      the same set-up, then the whole test suite"
	@echo "make chaos     only the fault-injection tests (killed Spark/worker, dead connections, Redis down)"
	@echo "make bench     benchmarks that print figures"
	@echo "make passwords print new passwords for the demo users"
	@echo "make stop      stop the project-local PostgreSQL and Redis under .var/"
	@echo "make lint      ruff and mypy (make test runs them first too)"

up:
	@bash scripts/up.sh

test:
	@bash scripts/test.sh $(ARGS)

chaos:
	@bash scripts/test.sh -m chaos $(ARGS)

bench:
	@bash scripts/bench.sh

setup:
	@bash scripts/setup.sh

passwords:
	@bash scripts/setup.sh >/dev/null && . scripts/lib.sh && load_env && $$PY manage.py create_demo_users --reset

stop:
	@bash scripts/services.sh stop

lint:
	@bash scripts/bootstrap.sh >/dev/null && bash scripts/lint.sh
