# ReactorHub: the two commands of the README, and a few more.
#   make run    build (release) and run the daemon with config/reactorhub.json
#   make test   every test suite: Swift, fuzzing (20 s per target), thread sanitizer,
#               websocat/Python, node, browser
#   make fuzz   the fuzz targets for FUZZ_SECONDS each (300), and the jsonpatch differential
.PHONY: run test build release swift-test tsan-test e2e-test js-test browser-test bench fuzz clean

SWIFT ?= swift
FUZZ_SECONDS ?= 300

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

clean:
	rm -rf .build test-output
