# ReactorHub: the two commands of the README, and a few more.
#   make run    build (release) and run the daemon with config/reactorhub.json
#   make test   every test suite: Swift, thread sanitizer, websocat/Python, node, browser
.PHONY: run test build release swift-test tsan-test e2e-test js-test browser-test bench clean

SWIFT ?= swift

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

bench:
	@scripts/ensure-deps.sh bench
	scripts/bench.sh

clean:
	rm -rf .build test-output
