# Telemetry Recorder — build, run and test entry points.
#
#   make run    installs what building needs when missing (setup-build), builds
#               tlm (release), records a short simulated session into
#               recordings/demo and prints its `tlm info`
#   make build  setup-build, then builds tlm (release)
#   make test   installs what building and testing need (setup), builds
#               everything (failing on any warning in our code) and runs the
#               whole test suite (the HTML report is checked in headless
#               Chromium; its screenshot is kept in
#               .build/artifacts/report-screenshot.png)
#   make tsan   setup, then the whole test suite under ThreadSanitizer (not part
#               of .ci/run: a second full build; run it when changing concurrent code)
#   make fuzz   setup, then the fuzzing and power-loss suites with 100 times the cases of make test
#   make bench  build and setup-test, then the benchmarks package (Benchmarks/;
#               it adds tshark, pandas and matplotlib; figures in Benchmarks/RESULTS.md)
#   make docs   setup-build, then the DocC documentation of every library,
#               failing on any DocC warning (archives in .build/plugins/Swift-DocC/outputs/)
#   make lint   swift-format lint of every Swift file (part of make test); make format fixes
#   make consumer-check  Streams-only and TelemetryTesting-only consumers build nothing
#               else (they need no C library: no installs)
#
# Installs (each only what is missing; apt-get with sudo when not root):
#   make setup-build  BUILD_DEBS: pkg-config and the C libraries' -dev packages
#                     (their runtime libraries come with them); all `tlm` needs
#   make setup-test   TEST_DEBS (sqlite3, the fake BlueZ's dbus-daemon, python3-dbus
#                     and python3-gi, Python's venv, chromium, Java) and the .venv with
#                     the Python readers (PY_PACKAGES)
#   make setup        both

SHELL        := /bin/bash
.SHELLFLAGS  := -eu -o pipefail -c
SWIFT        ?= swift
# Debian's python3, not whatever comes first on PATH.
PYTHON       := /usr/bin/python3
VENV         := .venv
# What building needs (pkg-config finds the C libraries of Sources/C*); the
# -dev packages bring the shared libraries `tlm` runs with.
BUILD_DEBS   := pkg-config libzstd-dev liblz4-dev libisal-dev libsqlite3-dev libdbus-1-dev libpng-dev
# What only the tests need: the sqlite3 CLI (the index must open in it), the
# fake BlueZ on a private bus (dbus-daemon, Debian's python3 with python3-dbus
# and python3-gi), Python's venv for the readers below, chromium (the HTML
# report checked in a headless browser), and Java for Spark (a lake read by
# pyspark in local mode; not for make run).
TEST_DEBS    := sqlite3 dbus-daemon python3 python3-dbus python3-gi python3-venv python3-pip chromium \
               openjdk-17-jre-headless
PY_PACKAGES  := mcap==1.6.0 mcap-ros2-support==0.6.0 duckdb==1.5.5 duckdb-extension-sqlite-scanner==1.5.5 \
               pyarrow==26.0.1 polars==2.1.0 rosbags==0.11.9 websockets==17.4 pyspark==4.3.0
DEMO         := recordings/demo
DEMO_SECONDS ?= 10s
# Tests that run live capture against the fake BlueZ (they time gaps against
# the fake's log) and D-Bus call timeouts (a 200 ms timeout must end the call
# well before libdbus's 25 s default) run on their own, after the rest, where long
# synchronous tests (crash kills, fuzzing) cannot hold the two threads of
# Swift's cooperative pool they need.
LIVE_TESTS   := CaptureTests|LiveCaptureCommandTests|DBusTests.ConnectionTests
# The README tour runs ~40 tlm processes (a few against its own fake BlueZ):
# on its own, last, so its load cannot starve the live group's timing.
TOUR_TESTS   := ReadmeTourTests
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup setup-build setup-test run test lint format tsan build bench docs fuzz clean man install-man

# install-debs: apt-get installs those of the packages $(1) that are not
# installed (nothing, not even apt-get update, when all are).
define install-debs
@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

setup: setup-build setup-test

setup-build:
	$(call install-debs,$(BUILD_DEBS))

setup-test: $(VENV)/.installed
	$(call install-debs,$(TEST_DEBS))

# The independent MCAP reader the tests check our files with, DuckDB with
# its sqlite extension (the index must be readable by it; the query and export
# benchmarks' peer), pyarrow and polars (with DuckDB, the Parquet export's
# readers), rosbags (a recording directory must open as a ROS 2 bag), pyspark
# (with DuckDB, a lake's engines: Tests/Python/read_lake.py), and websockets (the independent Foxglove WebSocket client of the live view tests).
# Re-run when this Makefile (its package list) changes.
$(VENV)/.installed: Makefile
	@for p in python3 python3-venv python3-pip; do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || need=1; \
	done; \
	if [ -n "$${need:-}" ]; then \
	  $(SUDO) apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3 python3-venv python3-pip >/dev/null; \
	fi
	[ -x $(VENV)/bin/pip ] || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check $(PY_PACKAGES)
	@touch $@

build: setup-build
	$(SWIFT) build -c release --product tlm

run: build
	@rm -rf $(DEMO)
	@mkdir -p $(dir $(DEMO))
	.build/release/tlm record --pipeline Pipelines/default.yaml --duration $(DEMO_SECONDS) --output $(DEMO)
	@echo
	.build/release/tlm info $(DEMO)

# swift-format (the toolchain's) with the project's .swift-format: every
# Swift file of ours must be formatted (`make format` formats them).
FORMATTED    := Sources Tests Benchmarks/Benchmarks Benchmarks/Sources Benchmarks/Package.swift Package.swift
lint:
	$(SWIFT) format lint --strict --recursive $(FORMATTED)

format:
	$(SWIFT) format format --in-place --recursive $(FORMATTED)

# Builds with the tests, fails on any warning in Sources/ or Tests/, then runs
# the suite (swift-testing runs tests in parallel), feeding every decoder
# 100 000 or more random and mutated packets and crashing 15 recordings at
# random (TLM_FUZZ_SCALE=1; `make fuzz` runs those suites a hundred times longer).
test: setup lint
	@$(SWIFT) build --build-tests 2>&1 | tee .build-test.log
	@if grep -E "^$(CURDIR)/(Sources|Tests)/.*: warning:" .build-test.log; then \
	  echo "error: warnings in our code (above)"; exit 1; fi
	TLM_FUZZ_SCALE=$${TLM_FUZZ_SCALE:-1} $(SWIFT) test --skip-build --skip '$(LIVE_TESTS)|$(TOUR_TESTS)'
	$(SWIFT) test --skip-build --filter '$(LIVE_TESTS)'
	$(SWIFT) test --skip-build --filter '$(TOUR_TESTS)'

# The whole suite under ThreadSanitizer, in its own build directory.
# Tests/tsan.supp names the one runtime hand-off TSan cannot see. The
# live-capture group runs one test at a time here, with more timing slack and
# longer hang guards: the sanitizer slows each link and each fake BlueZ down,
# and 39 of them at once on two cores timed out in CI. The rest runs with its
# suites' one-minute time limits scaled by 10: there every test waits for the
# same two threads of the cooperative pool, often for minutes behind the long
# synchronous tests, and one suite's minute ran out in CI while its tests
# waited (they passed in 506 s in the run before, under the same limit).
tsan: setup
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	TSAN_OPTIONS=suppressions=$(CURDIR)/Tests/tsan.supp TLM_FUZZ_SCALE=1 TLM_HANG_GUARD_SCALE=10 \
	  $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan --skip '$(LIVE_TESTS)|$(TOUR_TESTS)'
	TSAN_OPTIONS=suppressions=$(CURDIR)/Tests/tsan.supp TLM_TIMING_SLACK_MS=2000 TLM_HANG_GUARD_SCALE=3 \
	  $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan --filter '$(LIVE_TESTS)' --no-parallel
	TSAN_OPTIONS=suppressions=$(CURDIR)/Tests/tsan.supp TLM_HANG_GUARD_SCALE=3 \
	  $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan --filter '$(TOUR_TESTS)'

# Packages that use only the Streams product, or only TelemetryTesting, build
# against this repository and compile and link nothing else (no GRDB, Yams,
# swift-argument-parser or zstd); scratch paths under .build-consumer/.
.PHONY: consumer-check
consumer-check:
	SWIFT=$(SWIFT) Tests/Consumer/check.sh

# The query benchmark runs the release tlm (whole processes) against DuckDB,
# reading each process's peak memory from Debian's `time` (/usr/bin/time);
# the import benchmark against Debian's tshark, installed here only (not for
# `make test`), answering its setuid question first so apt does not ask; the
# report benchmark against pandas + matplotlib (Benchmarks/Scripts/plot_matplotlib.py),
# installed into the venv here only, not by `make setup`. setup-test brings
# the other peers: the venv's DuckDB (query, export) and Python `mcap` writer
# (recording), and the fake BlueZ and dbus-python (capture).
BENCH_DEBS   := tshark time
BENCH_PY_PACKAGES := matplotlib==3.11.2 pandas==3.1.1
bench: build setup-test
	$(VENV)/bin/pip install --quiet --disable-pip-version-check $(BENCH_PY_PACKAGES)
	@if [ "$$(dpkg-query -W -f='$${Status}\n' $(BENCH_DEBS) 2>/dev/null | grep -c 'install ok installed')" -ne $(words $(BENCH_DEBS)) ]; then \
	  echo "Installing Debian packages: $(BENCH_DEBS)"; \
	  echo "wireshark-common wireshark-common/install-setuid boolean false" | $(SUDO) debconf-set-selections; \
	  $(SUDO) apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(BENCH_DEBS) >/dev/null; \
	fi
	cd Benchmarks && $(SWIFT) package --disable-sandbox benchmark

# The DocC catalogs (Sources/<Target>/<Target>.docc) and `///` comments of
# every library, one archive each, built by swift-docc-plugin in one run (one
# symbol-graph build); any DocC warning (a broken ``link``, an undocumented
# parameter) fails it.
DOC_TARGETS  := Streams DBus Devices DeviceClocks MCAP ROS2 Quantities Recording DeviceRecording RecordingExport RecordingQueries \
                RecordingRepair Families Pipeline Capture CaptureFiles Session Snapshots Report LiveView TelemetryTesting TelemetryTestingRecordings
docs: setup-build
	$(SWIFT) package --disable-sandbox generate-documentation --warnings-as-errors \
	  $(foreach t,$(DOC_TARGETS),--target $(t))

# The man page, generated from the CLI's own help by argument-parser's
# generate-manual plugin (.build/plugins/GenerateManual/outputs/tlm/tlm.1);
# `make install-man` copies it into MANDIR (default: your own man path).
MANDIR ?= $(HOME)/.local/share/man/man1
MANPAGE := .build/plugins/GenerateManual/outputs/tlm/tlm.1
man: setup-build
	$(SWIFT) package --disable-sandbox plugin generate-manual --configuration release

install-man: man
	install -d $(MANDIR)
	install -m 644 $(MANPAGE) $(MANDIR)/tlm.1

clean:
	rm -rf .build .build-tsan .build-consumer Benchmarks/.build .build-test.log $(VENV) recordings

# The fuzzing suites (decoders, index and segments, capture files) and the
# power-loss crashes for longer: a hundred times the cases `make test` runs
# (TLM_FUZZ_SCALE=100).
fuzz: setup
	$(SWIFT) build --build-tests
	TLM_FUZZ_SCALE=$${TLM_FUZZ_SCALE:-100} $(SWIFT) test --skip-build --filter 'Fuzz|PowerLoss'
