# Thin wrapper over Meson + Ninja for the two quick-start commands, and
# for installing: make install [PREFIX=/usr/local] [DESTDIR=...],
# make uninstall (same variables), make deb (a Debian package in
# $(BUILD)/deb).
BUILD ?= build
MESON_OPTS ?=
PREFIX ?=
DESTDIR ?=
export MESON_OPTS

.PHONY: all deps build demo check bench fuzz clean install uninstall deb

all: build

deps:
	@sh scripts/install-deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

demo: build
	@printf '\n\033[1m$$ syspin scan -v examples/pinme\033[0m\n'
	@$(BUILD)/cli/syspin scan -v $(BUILD)/examples/pinme
	@printf '\n\033[1m$$ syspin scan --vdso\033[0m\n'
	@$(BUILD)/cli/syspin scan --vdso
	@printf '\n\033[1m$$ syspin scan libc.so.6 | tail -1\033[0m\n'
	@$(BUILD)/cli/syspin scan /lib/x86_64-linux-gnu/libc.so.6 | tail -1
	@sh scripts/demo.sh $(BUILD)

check: build
	meson test -C $(BUILD) --print-errorlogs

bench: build
	@sh bench/run.sh $(BUILD)

install: deps
	@sh scripts/install.sh install $(BUILD) "$(PREFIX)" "$(DESTDIR)"

uninstall:
	@sh scripts/install.sh uninstall $(BUILD) "$(PREFIX)" "$(DESTDIR)"

deb: deps
	@sh scripts/deb.sh $(BUILD)/deb

fuzz: deps
	@sh fuzz/run.sh

clean:
	rm -rf $(BUILD)
