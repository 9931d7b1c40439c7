# Thin wrapper over Meson + Ninja for the two quick-start commands, and
# for installing: make install [PREFIX=/usr/local] [DESTDIR=...],
# make uninstall (same variables), make deb (a Debian package in
# $(BUILD)/deb).
BUILD ?= build
MESON_OPTS ?=
PREFIX ?=
DESTDIR ?=
export MESON_OPTS

.PHONY: all deps build-deps test-deps fuzz-deps deb-deps build demo check \
	bench fuzz clean install uninstall deb

all: build

# Missing Debian packages: installed as root, else the apt-get command to
# run is printed (scripts/install-deps.sh).  `make build` needs only the
# build dependencies; `make check` adds the test dependencies, before the
# build is configured (meson looks for the optional toolchains then).
deps:
	@sh scripts/install-deps.sh build test fuzz

build-deps:
	@sh scripts/install-deps.sh build

test-deps:
	@sh scripts/install-deps.sh build test

fuzz-deps:
	@sh scripts/install-deps.sh fuzz

deb-deps:
	@sh scripts/install-deps.sh deb

$(BUILD)/build.ninja: | build-deps
	meson setup $(BUILD) $(MESON_OPTS)

build: build-deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

demo: build
	@printf '\n\033[1m$$ syspin scan -v examples/pinme\033[0m\n'
	@$(BUILD)/cli/syspin scan -v $(BUILD)/examples/pinme
	@printf '\n\033[1m$$ syspin scan --vdso\033[0m\n'
	@$(BUILD)/cli/syspin scan --vdso
	@printf '\n\033[1m$$ syspin scan libc.so.6 | tail -1\033[0m\n'
	@$(BUILD)/cli/syspin scan /lib/x86_64-linux-gnu/libc.so.6 | tail -1
	@sh scripts/demo.sh $(BUILD)

# A build configured before the test dependencies were installed (by
# `make demo`, the quick start's first command) did not find the
# optional toolchains some tests need (Go, musl): configured again, so
# that every test is built and run whatever ran before.
check: test-deps
	@if [ -f $(BUILD)/build.ninja ]; then \
		meson setup --reconfigure $(BUILD) $(MESON_OPTS) >/dev/null; fi
	@$(MAKE) --no-print-directory build
	meson test -C $(BUILD) --print-errorlogs

bench: build
	@sh bench/run.sh $(BUILD)

install: build-deps
	@sh scripts/install.sh install $(BUILD) "$(PREFIX)" "$(DESTDIR)"

uninstall:
	@sh scripts/install.sh uninstall $(BUILD) "$(PREFIX)" "$(DESTDIR)"

deb: deb-deps
	@sh scripts/deb.sh $(BUILD)/deb

fuzz: fuzz-deps
	@sh fuzz/run.sh

clean:
	rm -rf $(BUILD)
