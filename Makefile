# TLB flush series: base -> tree -> build -> boot -> results.
# `make check` is the test command; `make bench` measures base vs series.
S := scripts
# One clock for every step's "[  Ns]" prefix.
export T0 := $(shell date +%s)

.PHONY: all deps base tree export build tests check test bench lint selftest kunit split-check repro-hv-shadow repro-mremap repro-watchdog rig-base backport-check backport-test clean

all: check

deps:
	@$(S)/0-deps.sh

base: deps
	@$(S)/1-base.sh >/dev/null

tree: base
	@$(S)/2-tree.sh

export:
	@$(S)/export.sh

build: deps
	@for a in x86_64 arm64; do $(S)/3-build-kernel.sh $$a series >/dev/null || exit 1; done

tests: build
	@for a in x86_64 arm64; do $(S)/3-build-tests.sh $$a series >/dev/null || exit 1; done

selftest:
	@$(S)/selftest.sh

check: deps
	@$(S)/check.sh

# make check without the harness self-tests and the lint: builds, boots,
# KUnit, kselftests, the mutation matrix and herd7.
test: deps
	@CHECK_SKIP="selftest lint" $(S)/check.sh

# Each .kunitconfig of the series through the kernel's own kunit.py, in
# its own small kernel under QEMU (results/kunit.md); make check runs it
# too.
kunit: deps
	@$(S)/kunit.sh

bench: deps
	@$(S)/bench.sh

# Each series of split/ (one per tree) built at every patch and booted
# with its own tests (results/split.md); not part of make check, which
# only checks that each applies. SPLIT="NAME ..." for some of them,
# SPLIT_ARGS=--no-boot for the builds alone.
split-check: deps
	@$(S)/split-check.sh --build $(SPLIT_ARGS) $(SPLIT)

# The self-tests first, with the one of the bisect build that lint runs.
lint: deps
	@SELFTEST_BISECT=1 $(S)/selftest.sh | awk '$$1 == "FAIL" { f = 1 } { print } END { exit f }'
	@$(S)/lint.sh

# Tests that fail only now and then, run many times (see scripts/repro.sh).
repro-hv-shadow repro-mremap repro-watchdog: deps
	@$(S)/repro.sh $(@:repro-%=%)

# The base kernels on the tagged-TLB rig, with the upstream regression
# suites and the stress test (results/rig-base.md); not part of make check.
rig-base: deps
	@$(S)/rig-base.sh

# The stable backports (backports/NAME/, research/backports.md): each
# series applied with git am to its own pinned Debian base; no build.
backport-check:
	@$(S)/backport.sh check

# Each fix's reproducer on the base of each backport series, without and
# with the series (guest/views, view backport:NAME; results/backports.md):
# four kernels of two other bases, eight boots. BACKPORT="7.2" for one.
backport-test: deps
	@$(S)/backport.sh test $(BACKPORT)

# out/ only, and only when out/linux holds no uncommitted, untracked or
# unexported work (2-tree.sh --guard; FORCE=1 overrides): results/ is
# tracked.
clean:
	@OUT=$(CURDIR)/out $(S)/2-tree.sh --guard
	rm -rf out
