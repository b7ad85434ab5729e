# Two commands: `make run` serves the app, `make test` runs the whole suite.
# The interpreter of the venv: the system's own python3 when it is 3.11 or newer with venv
# (Debian's is an optimised build: 20-25 % faster on a save than the default build pyenv
# made on this machine, `make bench`), else the python3 on PATH. PYTHON=... picks another.
ifeq ($(origin PYTHON),undefined)
PYTHON := $(firstword $(foreach p,/usr/bin/python3 python3,$(shell $(p) -c 'import sys, venv, ensurepip; assert sys.version_info >= (3, 11)' 2>/dev/null && echo $(p))) python3)
endif
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test test-deep test-quick chromium redis bench outage deploy-check vendor lint eslint clean translations

$(BIN)/python:
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11 or newer is needed"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.run-installed: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev-installed: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.run-installed

run: $(VENV)/.run-installed
	$(BIN)/python app.py

# Playwright drives the system Chromium; as root on Debian it is installed from the archive: the full browser, in
# which make bench and make deploy-check open the pages as a phone does, and its headless shell (the same source and
# version), which the tests drive on a third less CPU (tests/helpers.py). Without the shell the tests drive the browser.
chromium: $(VENV)/.dev-installed
	@if [ -n "$$CHROMIUM" ] && [ -x "$$CHROMIUM" ]; then echo "Chromium: $$CHROMIUM"; \
	elif [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromium-headless-shell ]; then echo "Chromium: /usr/bin/chromium and its headless shell"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
		&& { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell \
			|| echo "no chromium-headless-shell in the archive: the tests drive the full browser"; }; \
	elif [ -x /usr/bin/chromium ]; then echo "Chromium: /usr/bin/chromium"; \
	else $(BIN)/python -m playwright install chromium; fi

# Redis, the limits' shared store on a server: the suite starts a throw-away one to show that two processes
# count as one (tests/web/test_rate_limits.py). As root on Debian it is installed from the archive; elsewhere
# that test is skipped without it.
redis:
	@if command -v redis-server >/dev/null; then echo "Redis: $$(command -v redis-server)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; \
	else echo "no redis-server: the shared store's test will be skipped"; fi

# The layer contracts (.importlinter) are checked first: a wrong arrow fails the build before the suite runs.
# Two workers (the machines have two cores): each test has its own database and server, and the browser
# tests spend much of their time waiting on polls, so the suite takes about half as long. The tests that
# judge a server by what it served under load in a bounded time run after, alone (pytest.ini's `alone`).
PYTEST_WORKERS = -n 2 --dist worksteal
# Compiled modules are kept, pytest's assertion-rewritten test modules among them, where a shell says not to
# write them: else each of a CI run's pytest processes (a controller and two workers per leg) rewrites every
# test module again, some seconds each.
unexport PYTHONDONTWRITEBYTECODE
# On PostgreSQL (DATABASE_URL=postgresql://..., as scripts/with-postgres.sh sets it) the suite has run on SQLite
# already: the tests marked `database` run again (pytest.ini says which), not the pure rules or the browser
# tests whose pages no database changes.
ON_POSTGRESQL := $(filter postgres://% postgresql://%,$(DATABASE_URL))
SELECTION := $(if $(ON_POSTGRESQL),database and )

# The suite: the parallel run, then the tests that run alone; $(1): more of pytest's options. The parallel run
# names its 15 slowest tests, where the next minute of CI is to be found.
define suite
	$(BIN)/lint-imports
	$(BIN)/python -m pytest $(PYTEST_WORKERS) --durations=15 -m "$(SELECTION)not alone" $(1)
	$(BIN)/python -m pytest -m "$(SELECTION)alone" $(1)
endef

test: chromium redis eslint
	$(call suite)

# make test with ten times as many generated examples per property and fuzzer (the "deep" Hypothesis profile,
# tests/conftest.py), every explicit example as in make test: for a change to the rules, the forms or the
# readers of what a phone sends.
test-deep: chromium redis eslint
	$(call suite,--hypothesis-profile=deep)

test-quick: $(VENV)/.dev-installed
	$(BIN)/python -m pytest $(PYTEST_WORKERS) -m "not e2e and not alone"
	$(BIN)/python -m pytest -m alone

# The performance benchmark against the budgets of issues 11, 26 and 30 (about 6-10 minutes); figures in bench/results.json.
# BASE=<commit> runs that commit's app too, each figure on both in turns, with the ratio (about twice as long);
# ONLY=save (or polls, fragments, card, history, groups, ratings, browser, slow, evening, hall; comma-separated) runs those parts alone.
# Redis too: the hall's PostgreSQL evening keeps the limits' counts in it, as the server set-up does (bench/hall.py).
bench: $(VENV)/.dev-installed chromium redis
	$(BIN)/python -m pytest -q -p no:cacheprovider bench/tests
	$(BIN)/python bench/run.py $(if $(BASE),--base $(BASE)) $(if $(ONLY),--only $(ONLY))

# A wi-fi outage at two tables: the network off for 5 minutes, 20 rounds entered; lost and doubled rounds (both 0).
outage: $(VENV)/.dev-installed chromium
	$(BIN)/python bench/outage.py

# The server set-up for real (root; 9-11 minutes from nothing, 3-4 with the images cached): the image built from the Dockerfile on a base
# made from Debian's packages, PostgreSQL, two app containers and Caddy's HTTPS, phones in Chromium.
deploy-check: $(VENV)/.dev-installed chromium
	deploy/check.sh

# The layers' contracts, and the map: the top of companion/ and every module named in docs/ARCHITECTURE.md; the docs' links;
# the scripts by ESLint.
lint: $(VENV)/.dev-installed eslint
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q tests/unit/test_layout.py tests/unit/test_docs.py

# ESLint over static/js/ and tests/e2e/*.js (eslint.config.js), at the versions package-lock.json pins, installed
# by `npm ci` into node_modules/ (again when the lock changes).
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

eslint: node_modules/.installed
	node_modules/.bin/eslint

vendor:
	scripts/vendor.sh

# Italian: extract the messages (the template is not kept), merge them into the .po, compile the .mo (kept in the repo).
translations: $(VENV)/.run-installed
	$(BIN)/pybabel extract -F babel.cfg -k _l -k N_ -k Np_:1,2 -o /tmp/messages.pot . && $(BIN)/pybabel update -i /tmp/messages.pot -d translations && $(BIN)/pybabel compile -d translations

clean:
	rm -rf $(VENV) .pytest_cache
