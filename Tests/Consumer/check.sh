#!/usr/bin/env bash
# Consumer check: packages that use only the `Streams` product (./Package.swift)
# or only the `TelemetryTesting` product (./TestingOnly) build against this
# repository, run, and compile and link nothing else: no GRDB, Yams,
# swift-argument-parser or zstd, and no other library of ours.
#
# SwiftPM 6 resolves (clones) every package dependency a package declares,
# whatever products a consumer uses, so the third-party packages show up in
# the consumer's Package.resolved; they are listed below for information.
# What the check enforces is that none of their modules is compiled or linked.
#
# Scratch paths live under .build-consumer/ at the repository root.
set -euo pipefail

SWIFT=${SWIFT:-swift}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
failed=0

# check NAME PACKAGE_DIR PRODUCT EXPECTED_OUTPUT ALLOWED_MODULE...
check() {
    local name=$1 package=$2 product=$3 expected=$4
    shift 4
    local allowed scratch bin built linked unexpected output
    allowed=$(printf '%s\n' "$product" "$@" | sort -u)
    scratch="$root/.build-consumer/$name"
    echo "== $name: building $package (scratch $scratch)"
    "$SWIFT" build --package-path "$package" --scratch-path "$scratch" --product "$product"
    bin=$("$SWIFT" build --package-path "$package" --scratch-path "$scratch" --show-bin-path)

    # Swift modules compiled, and the modules whose objects are linked.
    built=$(find "$bin/Modules" -maxdepth 1 -name '*.swiftmodule' -printf '%f\n' | sed 's/\.swiftmodule$//' | sort -u)
    linked=$(sed -E 's#.*/([^/]+)\.build/[^/]+$#\1#' "$bin/$product.product/Objects.LinkFileList" | sort -u)
    unexpected=$(comm -23 <(printf '%s\n%s\n' "$built" "$linked" | sort -u) <(echo "$allowed"))
    if [ -n "$unexpected" ]; then
        echo "error: $name compiled or linked modules this consumer must not need:" $unexpected
        failed=1
    else
        echo "ok: $name compiled and linked only:" $(echo "$allowed")
    fi

    output=$("$bin/$product")
    if [ "$output" != "$expected" ]; then
        echo "error: $name printed '$output', expected '$expected'"
        failed=1
    else
        echo "ok: $name ran and printed $output"
    fi

    echo "note: packages SwiftPM resolved for $name (resolution is not pruned by product):" \
        $(grep -o '"identity" *: *"[^"]*"' "$scratch/workspace-state.json" | sed 's/.*: *"//; s/"$//' | sort -u)
}

check streams "$here" StreamsConsumer "[2, 4, 6]" Streams Locking
check telemetry-testing "$here/TestingOnly" TestingConsumer "true" TelemetryTesting Streams Locking

if [ "$failed" -ne 0 ]; then
    echo "consumer check FAILED"
    exit 1
fi
echo "consumer check passed"
