# Thin wrapper over Meson + Ninja for the two quick-start commands.
BUILD ?= build
MESON_OPTS ?=

.PHONY: all deps build demo check bench fuzz clean

all: build

deps:
	@sh scripts/install-deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

demo: build
	@sh scripts/demo.sh $(BUILD)

check: build
	meson test -C $(BUILD) --print-errorlogs

bench: build
	@sh bench/run.sh $(BUILD)

fuzz: deps
	@sh fuzz/run.sh

clean:
	rm -rf $(BUILD)
